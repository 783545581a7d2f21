simulate -m llama-3.1-8b -g h100 --rate 2 -n 20 -w random:64:16:0.1 --max-model-len 32 -q
