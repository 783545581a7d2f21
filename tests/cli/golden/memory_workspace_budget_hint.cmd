memory -m llama-3.1-70b -g h100 -t 2 --max-batched-tokens 262144
