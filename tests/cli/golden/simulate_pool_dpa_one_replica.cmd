simulate -m deepseek-r1 -g h200 --prefill-pool 1:h200:8 --decode-pool 1:h200:8:ep8+dpa -e sglang -n 20 --rate 1 -w fixed:1000:100 -q
