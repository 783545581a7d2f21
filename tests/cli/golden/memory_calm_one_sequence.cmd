memory -m llama-2-7b -g a100 --engine calm
