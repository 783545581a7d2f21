simulate -m llama-2-7b -g a100 --rate 2 --concurrency 4
