plan -m llama-2-7b --gpus a10 --tp 1 --rate 20 --ttft-slo 100ms --tpot-slo 5ms --workload fixed:128:32
