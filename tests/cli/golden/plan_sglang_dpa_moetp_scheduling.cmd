plan -m qwen3-30b-a3b --gpus h100 --users 1000 -e sglang --tp 2 --ttft-slo 2s --tpot-slo 50ms -q
