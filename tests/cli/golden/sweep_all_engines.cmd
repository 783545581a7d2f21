sweep --models llama-3.1-8b --gpus h100 -t 1 -b 1 -p 128 -o 128 -e all --format jsonl
