estimate -m llama-3.1-70b -g h100 -t 8 -b 2000 -p 2048 -o 512 --format json
