simulate -m deepseek-v2-lite -g h100 -e sglang --rate 10 -w fixed:3000:300 -n 50 --kv-link nvlink --prefill-pool 1:h100:1 --decode-pool 1:h100:1:ep8+dpa
