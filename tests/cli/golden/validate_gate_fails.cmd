validate tests/data/validation/small.csv --max-decode-error 0.0001 -q
