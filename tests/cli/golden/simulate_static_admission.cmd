simulate -m llama-2-7b -g a100-sxm4-80gb --static-batching --admission optimistic -w fixed:200:50 --rate 1 -n 10 -q
