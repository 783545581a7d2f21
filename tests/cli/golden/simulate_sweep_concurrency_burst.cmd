simulate -m llama-3.1-8b -g h100 --sweep-concurrency 2,40 -n 20 -q
