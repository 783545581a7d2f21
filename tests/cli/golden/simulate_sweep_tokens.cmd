simulate -m llama-2-13b -g a100-sxm4-80gb -t 2 --rate 11 --requests 1000 --sweep-batched-tokens 128,256,512,1024,2048,4096
