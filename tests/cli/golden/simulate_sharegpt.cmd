simulate -m llama-3.1-8b -g h100 -w sharegpt --rate 8 -n 400
