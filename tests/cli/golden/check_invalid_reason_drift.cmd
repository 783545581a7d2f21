check tests/data/baseline-reason.jsonl
