plan -m llama-3.1-8b --gpus h100 --tp 1 --rate 50 --ttft-slo 2s --tpot-slo 50ms -e tgi -q --table options --format csv
