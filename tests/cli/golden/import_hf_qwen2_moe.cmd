import-hf tests/data/hf/qwen1.5-moe-a2.7b.json --name qwen1.5-moe-a2.7b
