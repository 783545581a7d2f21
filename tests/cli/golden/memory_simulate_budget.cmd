memory -m deepseek-v3 -g h100 -t 1 --ep 32 --dp-attention --max-batched-tokens 262144 --max-seqs 1024 --format csv
