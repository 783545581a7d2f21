plan -m llama-3.1-70b --gpus h200 --tp 8 --users 1 --fast --ttft-slo 1s -e vllm --no-chunked-prefill -w fixed:24500:300
