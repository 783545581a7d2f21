simulate -m llama-3.1-8b -g h100 -e tgi --prefill-pool 1 --decode-pool 1 --rate 1 -n 5
