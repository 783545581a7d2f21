report -m llama-3.1-405b --gpus l40s,a10g --tp 1,2 -b 16
