import-hf tests/data/hf/bad-llama4-moe-layers-300.json --name x
