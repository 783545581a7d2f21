plan -m llama-3.1-70b --gpus h100 --tp 8 --users 100 --gpus-per-node 2 --fast
