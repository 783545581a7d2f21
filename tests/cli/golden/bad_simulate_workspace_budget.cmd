simulate -m gemma-3-27b -g h100 -e vllm --rate 1 -n 2 --max-batched-tokens 200000 --no-chunked-prefill
