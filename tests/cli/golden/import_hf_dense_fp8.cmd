import-hf tests/cli/golden/dense-fp8.config.json --name qwen3-8b-fp8
