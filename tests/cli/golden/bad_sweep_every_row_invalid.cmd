sweep --models llama-3.1-8b --gpus h100 --ep 2
