simulate -m llama-2-7b -g a100 --sweep-batched-tokens 256,x
