simulate -m llama-3.1-8b -g h100 --pp 4 -e vllm -w chat -r 200 -n 3000
