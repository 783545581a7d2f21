plan -m llama-3.1-8b --gpus h100 --tp 1 --rate 5 --max-batched-tokens 64 --ttft-slo 2s --tpot-slo 50ms -q
