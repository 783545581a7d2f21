plan -m llama-2-7b --gpus a10 --tp 1,2 --rate 2 --ttft-slo 2s --tpot-slo 50ms --workload fixed:128:32 --exhaustive -q
