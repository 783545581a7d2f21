import-hf tests/data/hf/deepseek-v2-lite.json --name ds
