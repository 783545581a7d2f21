simulate -m llama-3.1-8b -g h100 --rate 1 --ramp-up 3s
