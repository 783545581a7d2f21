plan -m llama-2-7b --gpus a100 --tp 1 --rate 6 --max-seqs 4 -w fixed:128:128 -q --ttft-slo 2s --tpot-slo 100ms
