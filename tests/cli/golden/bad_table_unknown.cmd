estimate -m llama-2-7b -g h100 --format csv --table nope
