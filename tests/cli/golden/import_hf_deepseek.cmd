import-hf tests/data/hf/deepseek-v3.json --name my-ds
