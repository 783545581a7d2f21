plan -m llama-3.1-70b --gpus h100,h200,mi300x,b200 --tp 1,2,4,8 --rate 50 --ttft-slo 2s --tpot-slo 50ms --exhaustive -q
