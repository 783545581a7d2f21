estimate -m llama-3.1-8b -g h100 -p 200000 -o 100 --format json
