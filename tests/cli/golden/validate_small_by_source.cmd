validate tests/data/validation/small.csv --by source
