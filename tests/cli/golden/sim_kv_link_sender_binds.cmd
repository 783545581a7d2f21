simulate -m llama-3.1-8b -g h100 --prefill-pool 1 --decode-pool 8 -w fixed:4096:256 --kv-link 2 --rate 6 -n 300
