import-hf tests/data/hf/llama-4-moe-layers-from-0.json --name l4
