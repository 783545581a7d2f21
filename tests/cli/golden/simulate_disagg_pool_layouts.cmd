simulate -m qwen3-30b-a3b -g h100 --rate 5 -w fixed:2000:200 -n 100 --prefill-pool 1:h100:2 --decode-pool 1:h100:1:ep2+dpa
