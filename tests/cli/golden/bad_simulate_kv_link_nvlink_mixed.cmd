simulate -m llama-3.1-8b -g h200 --prefill-pool 1:h100 --decode-pool 1 --kv-link nvlink --rate 1 -n 10
