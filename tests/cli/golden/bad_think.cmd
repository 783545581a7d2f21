simulate -m llama-2-7b -g a100 --think 3s-1s
