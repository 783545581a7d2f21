plan -m deepseek-v3 --gpus h100 --rate 10 --ttft-slo 2s --tpot-slo 50ms
