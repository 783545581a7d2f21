simulate -m llama-3.1-8b -g h100 -e sglang-0.3 --spec draft:llama-3.2-1b --spec-accept 0.7 --rate 1 -n 40
