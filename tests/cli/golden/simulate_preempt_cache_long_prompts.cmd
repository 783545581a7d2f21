simulate -m llama-3.1-8b -g h100 -e vllm --rate 0.08 -n 30 -w fixed:100000:500
