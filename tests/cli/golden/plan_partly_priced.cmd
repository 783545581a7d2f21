plan -m llama-2-7b --gpus a10,l4 --tp 1 --users 50 --price a10=0.8 -q
