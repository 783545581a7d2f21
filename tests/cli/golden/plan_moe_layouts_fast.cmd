plan -m mixtral-8x7b --gpus h100 --users 2000 --fast
