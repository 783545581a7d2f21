simulate -m llama-2-70b -g a100-sxm4-80gb -t 2 --pp 2 --scenario offline --requests 40 -w fixed:512:64 --max-seqs 5 -q
