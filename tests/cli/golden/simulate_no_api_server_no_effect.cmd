simulate -m llama-3.1-8b -g h100 -e sglang --rate 5 -n 20 -q --no-api-server
