sweep --models llama-2-7b,internlm-20b --gpus a40,a100,v100 --tp 1,3,8 --batch 1,16 --prompt 512 --output 128
