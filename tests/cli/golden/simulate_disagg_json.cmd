simulate -m llama-3.1-70b -g h100 -t 4 --rate 5 -n 400 --prefill-pool 1 --decode-pool 2:h200:4 --kv-link ib --ttft-slo 2s --tpot-slo 50ms --format json
