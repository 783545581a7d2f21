plan -m llama-3.1-70b --gpus h100 -t 4 --rate 2 -w fixed:8000:300 --ttft-slo 3s --tpot-slo 60ms -q --kv-link 0.5
