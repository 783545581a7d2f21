sweep --models llama-3.1-8b --gpus h100,mi300x --engine vllm,sglang,tensorrt-llm -t 1 -b 8 -p 512 -o 128 --format jsonl
