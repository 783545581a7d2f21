import-hf tests/data/hf/bad-llama4-no-rope-entry.json --name x
