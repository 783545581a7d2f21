plan -m llama-3.1-8b --gpus h100,h200 --users 2000 --price h100=2.5 -q
