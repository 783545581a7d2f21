simulate -m llama-3.1-8b -g h100 -e vllm --sweep-rate 10,80 -n 300 --ttft-slo 100ms --tpot-slo 10ms
