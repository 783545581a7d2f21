simulate -m llama-3.1-8b -g h100 -e tgi -w fixed:120000:64 --rate 0.05 -n 30
