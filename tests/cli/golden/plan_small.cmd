plan -m llama-2-7b --gpus a10 --tp 1,2 --users 50 --workload fixed:128:32
