simulate -m llama-3.1-8b -g h100 -e vllm-0.6 --rate 2 --requests 20 -w fixed:1000:50
