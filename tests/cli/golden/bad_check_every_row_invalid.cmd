check tests/data/bad/baseline-every-row-invalid.jsonl
