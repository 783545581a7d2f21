plan -m llama-13b --price a100:1.8
