report -m mixtral-8x7b --gpus h100 --tp 1,2,4,8 --pp 2 -b 32 -p 1024 -o 256
