plan -m llama-2-7b --gpus a100 --engine calm --users 4 --fast
