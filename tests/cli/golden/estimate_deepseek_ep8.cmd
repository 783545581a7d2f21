estimate -m deepseek-v3 -g h200 --ep 8 --dp-attention --weight-dtype fp8 -b 64 -p 1024 -o 256 --ops
