simulate -m mixtral-8x7b -g h100 -e sglang --rate 4 -n 60 -q --prefill-pool 1:h100:1:ep8+dpa --decode-pool 1:h100:4:ep4 --format json
