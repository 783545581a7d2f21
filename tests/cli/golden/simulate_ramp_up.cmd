simulate -m llama-3.1-8b -g h100 -c 20 -n 200 --ramp-up 10s -w fixed:512:64
