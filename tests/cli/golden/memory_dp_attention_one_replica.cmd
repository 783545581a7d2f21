memory -m deepseek-v3 -g h200 -t 8 --ep 8 --dp-attention -c 2048
