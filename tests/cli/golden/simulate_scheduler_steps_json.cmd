simulate -m llama-3.1-8b -g h100 -e vllm-0.6 --rate 4 -n 40 -w fixed:955:128 --scheduler-steps 8 --format json
