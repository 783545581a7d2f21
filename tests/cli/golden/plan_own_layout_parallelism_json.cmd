plan -m deepseek-v3 --gpus h200 -t 1 --ep 8 --dp-attention --rate 2 -q --format json
