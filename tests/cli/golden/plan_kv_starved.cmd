plan -m llama-2-7b --gpus a10 --tp 1 --rate 0.6 --ttft-slo 20s --tpot-slo 200ms --workload fixed:1000:1000 -q
