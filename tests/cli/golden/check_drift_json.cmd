check tests/data/baseline-drift.jsonl --format json
