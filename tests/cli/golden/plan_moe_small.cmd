plan -m mixtral-8x7b --gpus h100 --tp 2 --users 200 --fast
