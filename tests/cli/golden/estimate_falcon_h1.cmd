estimate -m falcon-h1-3b -g h100 -b 16 -p 4096 -o 256
