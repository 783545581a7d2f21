plan -m deepseek-v3 --gpus b200 --tp 8 --rate 100 --ttft-slo 2s --tpot-slo 50ms -e sglang -q --table options --format csv
