report -m llama-2-7b -e calm -b 1 -t 1,2 --gpus a100
