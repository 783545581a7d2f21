estimate -m llama-2-70b -g h100 -t 4 -b 8 -p 1024 -o 256 --format json
