simulate -m llama-2-7b -g a100 -n 6 -c 2 --think 1e-3s-2e0s
