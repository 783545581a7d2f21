simulate -m llama-2-7b -g h100 -e vllm-0.4 --requests 20 --concurrency 4 --host-cpu-speed 0.5
