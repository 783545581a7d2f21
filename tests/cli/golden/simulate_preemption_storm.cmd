simulate -m llama-3.1-8b -g a10 -w fixed:7000:1193 -n 20 -c 8
