estimate -m deepseek-r1 -g h200 -t 8 -b 1 -p 1024 -o 2 -e sglang
