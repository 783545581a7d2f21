estimate -m deepseek-v3 -g h200 -t 8 --ep 8 --dp-attention --two-batch-overlap -b 64 -p 1024 -o 256
