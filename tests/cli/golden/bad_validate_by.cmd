validate tests/data/validation/measurements.csv --by framework
