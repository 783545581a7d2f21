simulate -m llama-2-7b -g a100-sxm4-80gb -e hf-transformers --prefill-pool 1 --decode-pool 1 --rate 1 -n 10 -q
