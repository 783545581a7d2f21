simulate -m llama-3.1-8b -g h100 -e vllm-0.6 --rate 10 -n 200 -w fixed:955:512 --no-chunked-prefill --scheduler-steps 8
