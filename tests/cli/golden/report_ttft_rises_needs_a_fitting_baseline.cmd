report -m qwen3-next-80b-a3b --gpus l40s --tp 1,2,4,8 -b 32 -p 4096 -o 256
