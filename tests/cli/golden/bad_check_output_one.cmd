check tests/data/baseline-output-one.jsonl
