plan -m qwen3-235b-a22b --gpus b200 --tp 4 --rate 50 --ttft-slo 2s --tpot-slo 50ms -q
