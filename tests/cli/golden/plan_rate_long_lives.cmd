plan -m llama-3.1-8b --gpus h100 --tp 1 --rate 10 --workload fixed:100:4000 --ttft-slo 2s --tpot-slo 15ms --table options --format csv
