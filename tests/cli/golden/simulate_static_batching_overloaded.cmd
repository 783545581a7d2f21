simulate -m llama-3.1-8b -g h100 --rate 10 -e hf-transformers -q
