plan -m llama-13b --gpus a40 --price a100=1.8
