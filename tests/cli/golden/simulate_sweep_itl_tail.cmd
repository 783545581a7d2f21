simulate -m llama-3.1-8b -g h100 -e vllm --sweep-batched-tokens 256,512,2048 --rate 20 --requests 400 -w sharegpt
