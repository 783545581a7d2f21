simulate -m llama-2-7b -g a10 -e sglang --shared-prefix 100 -n 30 -c 4
