plan -m kimi-k2 --gpus gb200 --tp 8 --users 100 --fast
