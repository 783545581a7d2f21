plan -m qwen3-30b-a3b --gpus h100 --tp 8 --users 5000 --fast -e sglang -q
