plan -m mixtral-8x7b --gpus h100 -e tgi --tp 2 --rate 2 -w fixed:500:100 --ttft-slo 2s --tpot-slo 100ms --format csv
