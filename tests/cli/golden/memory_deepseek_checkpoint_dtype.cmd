memory -m deepseek-v3 -g h200 --tp 8
