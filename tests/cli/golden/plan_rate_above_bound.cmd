plan -m llama-3.1-70b --gpus h100 --tp 4 --rate 24 --ttft-slo 1s --tpot-slo 50ms --table options --format csv
