estimate -m llama-2-7b -g h100 -b 8 --format csv --table ops
