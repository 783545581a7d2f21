plan -m llama-3.1-70b --gpus h100,h200 --tp 4,8 --rate 20 --ttft-slo 2s --tpot-slo 50ms --format json
