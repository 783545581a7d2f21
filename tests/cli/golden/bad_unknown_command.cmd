estimat -m llama-2-7b
