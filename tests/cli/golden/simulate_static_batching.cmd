simulate -m llama-2-7b -g a100-sxm4-80gb -e hf-transformers --max-seqs 4 -w fixed:200:50 --scenario offline -n 8 -q
