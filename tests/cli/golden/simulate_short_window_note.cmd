simulate -q -m llama-3.1-8b -g h100 --rate 4 -w fixed:100:2000 --requests 60 --format csv
