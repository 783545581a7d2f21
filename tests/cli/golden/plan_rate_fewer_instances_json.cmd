plan -m deepseek-v3 --gpus h200 --tp 8 --rate 10 --ttft-slo 2s --tpot-slo 50ms -e sglang -q --format json
