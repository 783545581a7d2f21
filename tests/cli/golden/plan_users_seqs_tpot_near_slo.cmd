plan -m llama-3.1-8b --gpus h100 --users 1000 --ttft-slo 2s --tpot-slo 20ms -w fixed:500:4000 --tp 2
