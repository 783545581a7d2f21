check tests/data/baseline-drift.jsonl
