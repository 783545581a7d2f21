simulate -m deepseek-v3 -g h200 -t 8 --ep 8 -w fixed:1024:256 -n 40 --format json
