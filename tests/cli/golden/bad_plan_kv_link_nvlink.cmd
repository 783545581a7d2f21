plan -m llama-3.1-8b --gpus h100,l4 --rate 5 --kv-link nvlink
