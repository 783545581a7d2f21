check tests/data/none.jsonl
