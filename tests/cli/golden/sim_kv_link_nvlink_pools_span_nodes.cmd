simulate -m llama-3.1-70b -g h100 -t 4 --prefill-pool 1 --decode-pool 3 --kv-link nvlink -w fixed:4096:64 --rate 1 -n 20
