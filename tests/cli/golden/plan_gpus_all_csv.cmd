plan -m llama-2-7b --gpus all --tp 1,2 --users 2000 --fast --format csv
