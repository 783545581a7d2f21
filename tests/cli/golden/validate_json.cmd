validate tests/data/validation/measurements.csv --by gpu --format json
