plan -m llama-3.1-70b --gpus h100 --tp 2 --pp 2 --rate 4 -w fixed:1000:200 -q
