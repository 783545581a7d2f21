simulate -m llama-2-7b -g a10 -e hf-transformers --shared-prefix 100 --no-prefix-cache -n 8 -c 2
