memory -m deepseek-v3 -g h200 -t 2 --ep 2 -c 1280
