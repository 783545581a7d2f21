report -m llama-3.1-8b -o 1
