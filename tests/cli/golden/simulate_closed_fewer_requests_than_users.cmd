simulate -m llama-3.1-8b -g h100 -c 40 -n 20 -w fixed:200:20 --format csv
