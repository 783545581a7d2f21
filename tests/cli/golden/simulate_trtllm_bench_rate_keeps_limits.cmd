simulate -m llama-3.1-8b -g h100 -e tensorrt-llm-pytorch --rate 5 -n 40 -w fixed:2000:100 --no-api-server
