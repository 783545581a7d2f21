simulate -m llama-2-7b -g a100 --workload fixed:abc:10
