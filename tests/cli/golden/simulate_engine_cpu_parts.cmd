simulate -m llama-3-8b -g h100 -e vllm-0.6 --scenario offline -w fixed:202:179 --requests 300
