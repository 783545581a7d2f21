plan -m llama-3-70b --gpus h100 --tp 4 --users 500 --tpot-slo 50ms --ttft-slo 2s -w random:1024:256:1 --fast -q
