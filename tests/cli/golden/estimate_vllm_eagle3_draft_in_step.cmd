estimate -m llama-3.1-8b -g h100 -e vllm --spec eagle3 --spec-accept 0.7 -p 1024 -o 256
