estimate -m llama-3.1-70b -g h100 --weight-dtype fp8 -e tensorrt-llm -b 12 -p 1024 -o 1024
