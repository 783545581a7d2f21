plan -m llama-3.1-70b --gpus h100 --tp 1 --users 4 -e calm --fast
