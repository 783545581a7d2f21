import-hf tests/data/hf/llama-4-scout-resaved.json --name llama-4-scout
