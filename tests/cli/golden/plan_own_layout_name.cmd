plan -m mixtral-8x7b --gpus h100 --tp 1 --ep 8 --dp-attention --rate 5
