simulate -m llama-2-7b -g a100 -c 1 -n 1 -w fixed:4000:200 --format csv --table latency
