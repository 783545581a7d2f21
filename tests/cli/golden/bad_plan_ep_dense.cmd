plan -m llama-3.1-8b -q --gpus h100 --ep 2
