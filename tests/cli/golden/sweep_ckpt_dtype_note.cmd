sweep --models deepseek-v3,llama-2-7b --gpus h200 -t 8 -b 8 -p 512 -o 512
