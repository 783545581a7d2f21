check tests/data/baseline-missing-field.jsonl
