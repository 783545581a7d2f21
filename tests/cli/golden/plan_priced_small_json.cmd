plan -m llama-2-7b --gpus a10,l4 --tp 1 --users 50 --workload fixed:128:32 --price a10=0.8,l4=0.7 --format json
