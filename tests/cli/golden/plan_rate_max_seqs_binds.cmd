plan -m deepseek-v3 --gpus h200 --tp 8 --rate 50 --ttft-slo 2s --tpot-slo 50ms -q
