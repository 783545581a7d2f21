estimate -m llama-3.1-8b -g h100 -b 8 -p 512 -o 256 --format json
