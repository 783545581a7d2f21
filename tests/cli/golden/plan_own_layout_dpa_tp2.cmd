plan -m mixtral-8x7b --gpus h100 --tp 2 --ep 8 --dp-attention --users 200 --fast
