check tests/data/baseline-fits.jsonl
