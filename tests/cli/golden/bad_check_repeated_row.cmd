check tests/data/baseline-doubled.jsonl
