plan -m llama-3.1-8b --gpus h100 -e tgi --tp 1 --rate 2 --kv-link ib -w fixed:500:100 --ttft-slo 2s --tpot-slo 100ms --format csv
