simulate -m llama-2-7b -g a100 -e vllm-0.4 -r 4 -n 100 --max-paddings 256 --format csv
