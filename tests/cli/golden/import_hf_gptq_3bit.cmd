import-hf tests/data/hf/qwen2.5-7b-instruct-gptq-3bit.json --name qwen2.5-7b-gptq-3bit
