check tests/data/baseline-engine.jsonl
