plan -m llama-3.1-8b --gpus h100 --tp 1 --users 1 --ttft-slo 3600s --tpot-slo 60s -q
