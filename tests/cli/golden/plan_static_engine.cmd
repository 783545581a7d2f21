plan -m llama-2-7b -e hf-transformers -r 0.5 -q --gpus a100-sxm4-40gb --tp 1
