memory -m deepseek-v3 -g h200 -t 1 --ep 8 --dp-attention -c 1280 --format json
