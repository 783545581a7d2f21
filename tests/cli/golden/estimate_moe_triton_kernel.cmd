estimate -m mixtral-8x7b -g h100 -t 2 -e vllm -b 8 -p 512 -o 64
