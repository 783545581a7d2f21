simulate -m llama-13b -g a100 -e tgi-0.8 -n 20 -r 0.3
