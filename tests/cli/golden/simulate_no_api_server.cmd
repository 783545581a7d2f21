simulate -m llama-3-8b -g h100 -e vllm-0.4 --scenario offline -n 200 -w fixed:1000:100 --no-api-server
