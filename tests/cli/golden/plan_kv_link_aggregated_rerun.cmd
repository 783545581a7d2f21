plan -m llama-3.1-70b --gpus h100 --rate 20 --ttft-slo 2s --tpot-slo 50ms --kv-link net -e vllm -q
