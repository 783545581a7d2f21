plan -m llama-3.1-8b --gpus h100 --tp 1 --users 1 --fast --ttft-slo 700ms -e vllm -w fixed:24500:300
