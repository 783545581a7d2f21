list gpus --gpus-file tests/data/nope.json
