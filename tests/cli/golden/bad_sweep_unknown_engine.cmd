sweep --models llama-3.1-8b --gpus h100 --engine vllm,nosuch -t 1 -b 8
