estimate -m mixtral-8x7b -g h100 -t 2 -b 4 --format csv
