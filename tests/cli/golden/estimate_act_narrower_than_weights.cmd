estimate -m llama-3.1-8b -g h100 --act-dtype fp8
