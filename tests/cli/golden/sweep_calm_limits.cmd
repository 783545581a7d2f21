sweep --models llama-2-7b --gpus a100 -e calm --batch 1,8 --tp 1,2 --prompt 128 --output 128
