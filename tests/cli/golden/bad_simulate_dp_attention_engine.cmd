simulate -m deepseek-v3 -g h200 --ep 8 --dp-attention -e tgi --rate 5 -n 30
