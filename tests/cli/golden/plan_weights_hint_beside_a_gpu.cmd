plan -m deepseek-v3 --gpus h100,b200 --tp 8 --users 100 --fast --exhaustive
