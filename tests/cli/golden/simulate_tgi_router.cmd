simulate -m llama-2-7b -g a100 -e tgi --rate 5 -n 50
