estimate -m llama-3.1-8b -g h200 --state-dtype fp32 -p 128 -o 16
