list gpus --format xml
