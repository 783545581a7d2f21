validate tests/data/validation/header-only.csv --max-serving-error 0.3 --max-e2e-error 0.3
