validate tests/data/validation/one-row.csv --format md
