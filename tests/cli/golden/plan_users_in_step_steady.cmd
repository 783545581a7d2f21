plan -m llama-3.1-8b --gpus h100 --tp 1 --users 2000 -w fixed:2000:300 --ttft-slo 2s --tpot-slo 50ms -e vllm --seed 1 -q
