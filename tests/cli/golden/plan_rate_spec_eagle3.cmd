plan -m llama-3.1-8b --gpus h100 --tp 1 --rate 20 --ttft-slo 2s --tpot-slo 8ms --spec eagle3 --spec-accept 0.7 -q
