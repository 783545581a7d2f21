report -m qwen3-8b --gpus l40s --tp 1,2,4 -b 32 -p 1024 -o 256
