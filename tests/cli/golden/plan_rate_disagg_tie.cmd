plan -m llama-3.1-8b --gpus a100 --rate 10 --ttft-slo 500ms --tpot-slo 50ms --workload fixed:8000:200 --tp 1,2 --format csv
