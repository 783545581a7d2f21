plan -m llama-3.1-70b --gpus h100,h200 --rate 50 --ttft-slo 2s --tpot-slo 50ms
