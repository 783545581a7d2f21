plan -m llama-3.1-70b --gpus l40s --rate 50 --ttft-slo 2s --tpot-slo 50ms --workload fixed:2000:300 --format csv
