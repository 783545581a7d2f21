import-hf tests/data/hf/llama-2-7b-w4a16.json --name w4a16
