estimate -m llama-2-70b -g h100 -t 16 -b 1 -p 128 -o 16
