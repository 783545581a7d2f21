simulate -m llama-2-7b -g a100 --engine lmdeploy-0.1 --range --requests 100
