memory -m llama-3.1-8b -g h100 --max-seqs 0
