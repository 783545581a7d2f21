list gpus --gpus-file tests/data
