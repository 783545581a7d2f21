estimate -m deepseek-v2 -g h100 -t 1 --moe-tp 8 --dp-attention -b 64 -p 1 -o 512 --weight-dtype fp8 --ops
