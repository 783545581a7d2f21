validate tests/data/validation/measurements.csv -g h100
