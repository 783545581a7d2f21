sweep --models deepseek-v3,mixtral-8x22b --gpus h200,b200 --tp 1,8 --batch 32 --prompt 1024 --output 256 --ep 8 --dp-attention --weight-dtype fp8
