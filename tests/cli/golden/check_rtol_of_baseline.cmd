check tests/data/baseline-rtol.jsonl --rtol 0.6
