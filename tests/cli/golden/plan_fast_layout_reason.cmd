plan -m qwen3-235b-a22b --gpus h200 --tp 4 --users 5000 --fast -e sglang -q
