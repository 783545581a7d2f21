estimate -m llama-2-7b -g a100 -o 1 --range --format json
