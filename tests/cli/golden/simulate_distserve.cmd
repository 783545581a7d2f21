simulate -m opt-13b -g a100-sxm4-80gb -e distserve --prefill-pool 1:a100-sxm4-80gb:2 --decode-pool 1:a100-sxm4-80gb:1 -w sharegpt:780:176 --rate 3 -n 100 --max-model-len 2048
