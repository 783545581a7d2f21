simulate -m llama-3.1-8b -g h100 --spec eagle --spec-accept 0.7 --spec-k 20 --spec-tree 2:10
