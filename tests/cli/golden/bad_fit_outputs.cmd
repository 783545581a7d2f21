validate tests/data/validation/measurements.csv --fit-gpus x.json
