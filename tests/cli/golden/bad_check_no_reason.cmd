check tests/data/baseline-no-reason.jsonl
