import-hf tests/data/hf/kimi-k2-thinking.json --name kimi-k2-thinking
