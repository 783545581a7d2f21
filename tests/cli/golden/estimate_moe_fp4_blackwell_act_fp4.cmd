estimate -m deepseek-r1-0528-nvfp4 -g b200 -t 8 -b 8 -p 512 -o 64 --act-dtype fp4
