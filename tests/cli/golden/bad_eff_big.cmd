estimate -m llama-2-7b -g a100 --compute-eff 1.5
