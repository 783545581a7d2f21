plan -m llama-3.1-70b --gpus h100 --tp 4 --rate 10 --ttft-slo 2s --tpot-slo 50ms -w fixed:8000:500 -q --table options --format csv
