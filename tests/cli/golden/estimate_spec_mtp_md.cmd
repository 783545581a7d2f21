estimate -m deepseek-v3 -g h200 -t 8 --ep 8 -b 16 -p 1024 -o 256 --spec mtp --spec-k 1 --spec-accept 0.8 --format md
