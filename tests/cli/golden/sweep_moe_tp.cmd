sweep --models deepseek-v2 --gpus h100 --tp 1 --moe-tp 8 --dp-attention --batch 8 --prompt 1024 --output 256 --weight-dtype fp8 --format jsonl
