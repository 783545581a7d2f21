simulate -m llama-2-7b -g a100-sxm4-80gb -w fixed:700:10 --rate 1 -n 4 --max-model-len 600 --format json
