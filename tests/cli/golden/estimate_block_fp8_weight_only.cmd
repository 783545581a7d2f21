estimate -m deepseek-r1 -g a100-sxm4-80gb -t 8 --pp 2 -b 8 -p 512 -o 64
