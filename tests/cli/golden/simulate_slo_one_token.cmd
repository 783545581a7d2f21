simulate -m llama-3.1-8b -g h100 --rate 2 -n 5 -w fixed:512:1 --ttft-slo 1s --tpot-slo 10ms
