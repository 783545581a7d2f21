validate tests/data/validation/measurements.csv --by source
