simulate -m llama-3.1-8b -g h100 -w fixed:4096:256 --rate 15 -n 300 --prefill-pool 1 --decode-pool 4
