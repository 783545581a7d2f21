estimate -m llama-3.1-8b -g h100 -b 4 -p 1024 -o 256 --spec eagle --spec-k 5 --spec-tree 4:16 --spec-accept 0.7 --format json
