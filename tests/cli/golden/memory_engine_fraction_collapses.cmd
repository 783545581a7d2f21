memory -m deepseek-v3 -g h200 -t 1 --ep 256 --dp-attention -e sglang -c 2500
