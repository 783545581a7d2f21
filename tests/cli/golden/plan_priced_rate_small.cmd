plan -m llama-2-7b --gpus a10,l4 --tp 1 --rate 2 --ttft-slo 2s --tpot-slo 50ms --workload fixed:128:32 --price a10=0.8,l4=0.7 -q
