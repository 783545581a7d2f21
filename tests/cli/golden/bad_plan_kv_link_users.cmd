plan -m llama-3.1-8b --gpus h100 --users 100 --kv-link ib
