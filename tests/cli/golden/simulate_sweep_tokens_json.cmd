simulate -m llama-3.1-8b -g h100 -c 8 -n 30 -w fixed:256:32 --sweep-batched-tokens 512,1024 --format json -q
