simulate -m llama-2-7b -g a100 -e vllm --trace tests/data/trace.csv --no-prefix-cache
