plan -m qwen3-30b-a3b --gpus h100 --rate 5 --moe-tp 3 --dp-attention
