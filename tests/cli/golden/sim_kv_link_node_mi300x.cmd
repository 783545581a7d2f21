simulate -m llama-3.1-8b -g mi300x --prefill-pool 1:mi300x:1 --decode-pool 1 --kv-link node --rate 2 -n 50
