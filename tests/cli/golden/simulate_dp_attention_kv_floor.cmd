simulate -m deepseek-v3 -g h200 -t 1 --ep 8 --dp-attention -w fixed:1024:256 -n 40
