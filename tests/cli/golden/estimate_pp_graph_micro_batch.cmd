estimate -m llama-3.1-70b -g h100 -t 2 --pp 2 -e vllm-0.8 -b 1024 -p 200 -o 20
