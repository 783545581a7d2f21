report -m llama-3.1-8b --gpus h200 --tp 1 -p 140000 -o 100 -b 1
