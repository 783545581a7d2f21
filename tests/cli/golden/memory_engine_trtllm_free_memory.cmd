memory -m llama-3.1-70b -g h100 --weight-dtype fp8 -e tensorrt-llm
