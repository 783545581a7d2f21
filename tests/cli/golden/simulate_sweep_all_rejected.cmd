simulate -m llama-3.1-8b -g h100 -e tensorrt-llm --sweep-rate 1,2 -n 40 -w fixed:9000:50
