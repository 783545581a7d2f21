plan -m mixtral-8x7b --gpus h100 --tp 2,4 --rate 20 --ttft-slo 2s --tpot-slo 50ms --format json
