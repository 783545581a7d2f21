simulate -m llama-3.1-8b -g h100 -e sglang -c 8 -n 40 --think 0-0 -w random:1024:128:0.5 --recv-interval 10 -q
