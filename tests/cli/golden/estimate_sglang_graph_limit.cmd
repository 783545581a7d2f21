estimate -m llama-2-7b -g h100 -e sglang -b 161
