memory -m deepseek-r1 -g a100-sxm4-80gb -t 8 --pp 2 -c 576 --format json
