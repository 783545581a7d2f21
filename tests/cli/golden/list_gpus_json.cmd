list gpus --format json
