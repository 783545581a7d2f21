estimate -m llama-3.1-8b -g h100 -e vllm-0.4 --spec eagle3 --spec-accept 0.7
