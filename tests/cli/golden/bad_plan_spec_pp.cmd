plan -m llama-3.1-8b --gpus h100 --pp 2 --spec eagle --spec-accept 0.7
