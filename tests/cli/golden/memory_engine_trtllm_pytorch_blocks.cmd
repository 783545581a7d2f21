memory -m llama-3.1-8b -g h100 -e tensorrt-llm-pytorch --context 1000
