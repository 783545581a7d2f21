estimate -m llama-3.1-8b -g h100 -e sglang -b 1 -p 1024 -o 256 --spec eagle3 --spec-accept 0.7 --format json
