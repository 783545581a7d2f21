simulate -q -m deepseek-v3 -g h200 -t 1 --ep 8 --dp-attention --two-batch-overlap --rate 2 -n 8 -w fixed:256:8
