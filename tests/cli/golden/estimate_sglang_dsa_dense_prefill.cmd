estimate -m deepseek-v3.2-exp -g h200 -t 8 -b 4 -p 2048 -o 64 -e sglang
