estimate -m llama-3.1-8b -g a100-80gb
