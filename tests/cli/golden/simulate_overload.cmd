simulate -m llama-3.1-8b -g l4 --rate 2 --workload docqa --ttft-slo 2s --tpot-slo 100ms
