simulate -m llama-3.1-8b -g h100 -e tgi --max-concurrent-requests 0 --rate 1 -n 10
