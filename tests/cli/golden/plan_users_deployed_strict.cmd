plan -m llama-3.1-8b --gpus h100 --users 460 --ttft-slo 1s --tpot-slo 30ms -w fixed:2000:200 --tp 4 -q
