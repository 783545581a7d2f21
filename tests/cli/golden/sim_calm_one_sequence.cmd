simulate -m llama-2-7b -g a100 --engine calm --rate 0.2 -n 20 -w fixed:256:64
