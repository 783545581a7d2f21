estimate -m qwen3-235b-a22b -g h200 -t 8 --spec eagle3 --spec-accept 0.7 -b 32 -p 2048 -o 512
