simulate -m llama-2-7b -g h100 -e vllm-0.6 --shared-prefix 100 -n 30 -c 4 --format json
