memory -m deepseek-v3 -g h200 --ep 8 --dp-attention --max-seqs 20 --max-batched-tokens 2000 --block-size 16
