plan -m llama-3.1-8b --gpus h100 -e tensorrt-llm --users 50 -w docqa --tp 1 -q
