report -m mixtral-8x7b --gpus h100,l40s --tp 1,2,4,8 -b 32 -p 1024 -o 256
