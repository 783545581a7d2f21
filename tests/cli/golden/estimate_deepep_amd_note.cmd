estimate -m deepseek-v3 -g mi300x -t 1 --ep 8 --dp-attention -e sglang -b 8 -p 1024
