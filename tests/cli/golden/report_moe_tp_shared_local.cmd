report -m deepseek-v2 --gpus h200 --tp 1 --moe-tp 8 --dp-attention -e vllm --weight-dtype fp8 --format csv
