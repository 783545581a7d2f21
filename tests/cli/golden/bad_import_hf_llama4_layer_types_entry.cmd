import-hf tests/data/hf/bad-llama4-layer-types-entry.json --name x
