plan -m qwen3-30b-a3b --gpus h100 --tp 2 -e vllm-0.6 --users 20 --fast --table options --format csv
