simulate -m deepseek-v2 -g h100 -t 1 --moe-tp 8 --dp-attention -e sglang --weight-dtype fp8 --kv-dtype bf16 -w fixed:1:512 --scenario offline -n 600
