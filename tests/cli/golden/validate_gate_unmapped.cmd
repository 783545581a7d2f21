validate tests/data/validation/unmapped.csv --max-prefill-error 0.3
