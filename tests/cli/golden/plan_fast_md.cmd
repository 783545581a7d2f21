plan -m llama-65b --gpus a40,a100-sxm4-80gb --users 10000 --tpot-slo 80ms --slo-percentile p99 --fast --format md
