check tests/data/bad/baseline-malformed.jsonl
