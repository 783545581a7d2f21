check tests/data/bad/baseline-fractional-batch.jsonl
