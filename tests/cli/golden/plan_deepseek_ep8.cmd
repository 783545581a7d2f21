plan -m deepseek-v3 --gpus h200 --tp 1 --ep 8 --dp-attention --weight-dtype fp8 --users 2000 --fast
