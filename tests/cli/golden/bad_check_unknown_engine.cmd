check tests/data/baseline-unknown-engine.jsonl
