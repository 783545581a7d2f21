report -m mixtral-8x7b --gpus h100 --tp 2,8 --ep 4
