simulate -m llama-2-7b -g a100 -w fixed:500:20 -n 20 --max-batched-tokens 256 --no-chunked-prefill
