validate tests/data/validation/small.csv --by gpu --format json
