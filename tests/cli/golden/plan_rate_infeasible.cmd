plan -m llama-3.1-70b --gpus h100 --tp 4,8 --rate 50 --ttft-slo 100ms --tpot-slo 5ms
