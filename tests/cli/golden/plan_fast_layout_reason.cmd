plan -m qwen3-235b-a22b --gpus h100 --tp 8 --users 5000 --fast -e sglang -q
