report -m llama-3.1-8b --gpus h100 --tp 8,16
