plan -m llama-13b
