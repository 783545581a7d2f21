simulate -m qwen3-30b-a3b -g h100 --ep 4 --dp-attention --max-seqs 2 -c 20 -q
