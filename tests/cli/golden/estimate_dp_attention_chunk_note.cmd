estimate -m deepseek-v3 -g h200 -t 1 --ep 8 --dp-attention -e sglang -b 1 -p 2000 -o 300
