simulate -m llama-2-7b -g a100-sxm4-80gb -e deepspeed-fastgen --scenario offline -w fixed:500:150 -n 200
