sweep --models llama-2-7b --gpus h100 -o 1,128
