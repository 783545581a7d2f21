estimate -m llama-3.1-8b -g h100 -b 1 -p 1024 -o 256 --spec eagle --spec-k 3 --spec-accept 0.7 --spec-tree 4:16
