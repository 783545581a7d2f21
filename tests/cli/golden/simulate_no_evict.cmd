simulate -m llama-2-7b -g a10 -c 64 -n 128 --think 0 -w fixed:2048:2048 --admission no-evict
