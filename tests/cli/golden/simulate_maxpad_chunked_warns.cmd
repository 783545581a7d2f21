simulate -m llama-2-7b -g a100 --rate 2 -n 100 --max-paddings 256
