simulate -m llama-3.1-8b -g h100 -n 20 --sweep-rate 1,2 --rate 3
