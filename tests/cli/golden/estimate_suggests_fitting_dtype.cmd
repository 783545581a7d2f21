estimate -m deepseek-v3 -g h200 --tp 8 --weight-dtype bf16
