estimate -m deepseek-v3 -g h200 -t 1 --ep 8 --dp-attention --two-batch-overlap -e sglang -b 256 -p 1000 -o 1000
