simulate -m llama-2-7b -g a100-sxm4-80gb -w fixed:3500:1000 --rate 0.2 -n 20 --max-model-len 4096 --format csv --table quantities
