import-hf tests/data/hf/gpt-oss-120b.json --name my-oss
