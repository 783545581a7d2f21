plan -m llama-3.1-8b --gpus h100 --users 500 --ttft-slo 1s --tpot-slo 30ms -w fixed:2000:200 -q --format csv --table options
