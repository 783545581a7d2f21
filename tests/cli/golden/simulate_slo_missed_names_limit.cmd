simulate -m llama-3.1-8b -g h100 --rate 5 --requests 300 --ttft-slo 10ms --tpot-slo 5ms
