simulate -m llama-3.1-70b -g h100 -t 4 --prefill-pool 1 --decode-pool 1 -e vllm --rate 0.05 -n 20 -w fixed:8000:20
