estimate -m llama-3.1-8b -g h100 -b 4 -p 512 -o 1 --spec eagle --spec-accept 0.7
