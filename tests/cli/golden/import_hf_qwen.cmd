import-hf tests/data/hf/qwen2.5-1.5b.json --name my-qwen
