simulate -m deepseek-v2-lite -g l4 --ep 4 --dp-attention --pp 2 --mem-util 0.45 --scenario offline -n 4 -w fixed:150000:1000 -q
