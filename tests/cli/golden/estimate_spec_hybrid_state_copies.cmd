estimate -m qwen3-next-80b-a3b -g h200 -t 2 -b 8 -p 2000 -o 500 --spec mtp --spec-accept 0.7 --spec-k 8
