simulate -m llama-3.1-8b -g h100 --rate 1 -n 20 --prefill-pool 1 --decode-pool 1 --kv-link 0.4 -q
