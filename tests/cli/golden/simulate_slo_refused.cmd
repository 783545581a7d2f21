simulate -m llama-3.1-8b -g h100 -e tgi --concurrency 135 -n 600 --think 0-1s --ttft-slo 3s --tpot-slo 100ms
