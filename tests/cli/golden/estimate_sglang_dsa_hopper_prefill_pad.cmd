estimate -m deepseek-v3.2-exp -g h200 -t 8 -b 4 -p 8192 -o 64 -e sglang
