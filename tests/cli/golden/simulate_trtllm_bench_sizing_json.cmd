simulate -m llama-3.1-8b -g h100 -e tensorrt-llm-pytorch --weight-dtype fp8 --kv-dtype fp8 -w fixed:20000:2000 --scenario offline -n 60 --no-api-server --format json
