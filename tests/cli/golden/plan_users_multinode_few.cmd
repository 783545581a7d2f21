plan -m llama-3.1-8b --gpus h100 --users 3 --tp 4 --gpus-per-node 2 --ttft-slo 400ms --tpot-slo 100ms -w fixed:30000:100 -q
