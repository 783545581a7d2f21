import-hf tests/data/hf/qwen2.5-7b-instruct-awq.json --name qwen2.5-7b-awq
