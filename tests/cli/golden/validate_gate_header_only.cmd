validate tests/data/validation/header-only.csv --max-decode-error 0.3
