report -m mixtral-8x7b --gpus h100 --tp 2,4 --ep 8 --dp-attention -b 32 -p 1024 -o 256
