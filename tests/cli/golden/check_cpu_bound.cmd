check tests/data/baseline-cpu-bound.jsonl
