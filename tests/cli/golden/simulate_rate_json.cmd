simulate -m llama-2-7b -g a100-sxm4-80gb --rate 8 --requests 500 --workload docqa --seed 7 --format json
