plan -m llama-3.1-70b --gpus h200 --tp 8 --users 1 --fast --ttft-slo 900ms -w fixed:24500:300
