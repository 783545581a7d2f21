simulate -m llama-3.1-8b -g h100 --rate 4 -n 40 -w fixed:955:128 --no-chunked-prefill --scheduler-steps 8 --max-paddings 256 --format csv
