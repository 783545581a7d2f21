check tests/baseline/sweep-dtypes.jsonl --rtol -1
