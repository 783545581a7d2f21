plan -m llama-3.1-8b --gpus h100 --fast --spec eagle3 --spec-accept 0.7
