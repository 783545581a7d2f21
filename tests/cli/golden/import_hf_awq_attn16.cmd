import-hf tests/data/hf/qwen2.5-7b-instruct-awq-attn16.json --name qwen2.5-7b-awq-attn16
