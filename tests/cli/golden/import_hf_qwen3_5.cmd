import-hf tests/data/hf/qwen3.5-397b-a17b.json --name qwen3.5-397b-a17b
