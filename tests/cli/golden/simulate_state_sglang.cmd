simulate -m nemotron-nano-9b-v2 -g h100 -e sglang -n 20 -c 4
