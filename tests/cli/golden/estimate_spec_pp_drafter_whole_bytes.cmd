estimate -m deepseek-v3 -g h200 -t 4 --pp 2 -b 64 -p 2000 -o 500 --spec mtp --spec-accept 0.8 --format json
