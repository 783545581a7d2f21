plan -m deepseek-v3 --gpus h200 --tp 8 --rate 5 -w docqa -e vllm --ttft-slo 2s --tpot-slo 50ms --table options --format csv
