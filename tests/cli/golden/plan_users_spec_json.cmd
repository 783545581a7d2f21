plan -m llama-3.1-8b --gpus h100 --tp 1 --users 200 --tpot-slo 8ms --spec eagle3 --spec-accept 0.7 --format json -q
