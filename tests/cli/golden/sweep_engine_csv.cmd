sweep --models llama-3.1-8b --gpus h100 --engine vllm -t 1,2 -b 8 -p 512 -o 128 --state-dtype fp32
