simulate -m llama-3.1-8b -g a10 -e sglang --scenario offline -n 60 -w fixed:2000:2000 --format json
