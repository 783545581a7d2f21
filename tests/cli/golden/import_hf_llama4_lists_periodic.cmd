import-hf tests/data/hf/llama-4-lists-periodic.json --name l4
