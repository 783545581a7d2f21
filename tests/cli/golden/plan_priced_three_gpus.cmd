plan -m llama-3.1-70b --gpus h100,h200,b200 --rate 50 --ttft-slo 2s --tpot-slo 50ms -e vllm --weight-dtype fp8 --kv-dtype fp8 --price h100=2.5,h200=3.5,b200=9 -q
