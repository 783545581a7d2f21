plan -m llama-3.1-8b --gpus h100,l4 -e vllm --rate 2 --spec eagle --spec-accept 0.7 --spec-k 12 --spec-tree 16:2800
