simulate -m llama-3.1-70b -g h100 -t 8 --prefill-pool 1 --decode-pool 1 --kv-link nvlink --rate 1 -n 10
