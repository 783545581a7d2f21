import-hf tests/data/hf/gemma-3n-e4b.json --name x
