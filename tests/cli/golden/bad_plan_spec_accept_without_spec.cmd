plan -m llama-3.1-8b --gpus h100 --spec-accept 0.7
