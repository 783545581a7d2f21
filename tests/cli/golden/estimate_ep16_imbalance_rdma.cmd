estimate -m deepseek-v3 -g h100 -t 1 --ep 16 --dp-attention -b 16 -p 4096 -o 128 --ep-imbalance 1.5 --ops
