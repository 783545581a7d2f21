simulate -m llama-3.1-8b -g h100 -e sglang --spec eagle3 --spec-accept 0.7 --rate 2 -n 50
