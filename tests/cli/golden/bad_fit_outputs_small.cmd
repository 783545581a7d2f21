validate tests/data/validation/small.csv --fit-gpus x.json
