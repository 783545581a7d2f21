import-hf tests/data/hf/qwen2.5-7b-instruct-gptq-int8.json --name qwen2.5-7b-gptq-int8
