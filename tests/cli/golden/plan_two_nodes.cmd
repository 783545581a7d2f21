plan -m deepseek-v3 --gpus h100 --tp 4,8 --pp 2 --users 300 --workload fixed:512:128 --price h100=2.5
