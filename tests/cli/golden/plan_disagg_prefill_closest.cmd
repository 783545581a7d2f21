plan -m llama-3.1-8b --gpus h100 --rate 50 --ttft-slo 1ms --tp 1 -q
