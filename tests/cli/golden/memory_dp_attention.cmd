memory -m deepseek-v3 -g h200 --ep 8 --dp-attention --weight-dtype fp8 -c 4096
