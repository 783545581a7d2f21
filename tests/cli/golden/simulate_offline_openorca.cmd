simulate -m llama-2-70b -g h100 -t 8 --scenario offline -n 1000 -w openorca
