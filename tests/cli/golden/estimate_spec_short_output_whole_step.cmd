estimate -m llama-3.1-8b -g h100 -b 1 -p 100 -o 2 --spec eagle --spec-accept 0.9 --spec-k 8
