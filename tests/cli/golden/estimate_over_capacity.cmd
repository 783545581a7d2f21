estimate -m llama-2-7b -g a10 -b 64 -p 2048 -o 2048
