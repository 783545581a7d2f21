import-hf tests/data/hf/bad-gemma3-kv-shared.json --name x
