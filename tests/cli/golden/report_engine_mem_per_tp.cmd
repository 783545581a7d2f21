report -m deepseek-v2 --gpus h200 --tp 1,2 --ep 8 --dp-attention --weight-dtype fp8 -e vllm --format csv
