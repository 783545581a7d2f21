check tests/data/baseline-one-byte.jsonl --rtol 0
