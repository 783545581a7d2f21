validate tests/data/hf/llama-2-7b.json
