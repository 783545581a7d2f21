estimate -m llama-2-7b -g v100 --act-dtype bf16
