estimate -m llama-2-7b -g h100 -b 1 -p 5 -o 100 -e vllm-0.2 --ops
