plan -m llama-3.1-8b --gpus h100 --tp 1 --users 100 --ttft-slo 1000s --tpot-slo 10s --max-seqs 100000 --fast
