simulate -m llama-3.1-405b -g h100 -t 8 --weight-dtype fp8 -e vllm --scenario offline -w fixed:32000:1000 -n 40
