plan -m llama-3.1-8b --gpus h100 --tp 1 -e tensorrt-llm --rate 1 -w fixed:9000:200
