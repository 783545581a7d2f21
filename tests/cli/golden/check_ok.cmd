check tests/baseline/sweep-dtypes.jsonl --rtol 0.001
