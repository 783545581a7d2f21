sweep --models llama-7b --gpus a100 -t 1 -b 1 -p 1024,2048 -o 512
