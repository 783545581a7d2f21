plan -m gpt-j-6b --gpus a100 --tp 1 -w fixed:2000:100 --rate 1 --ttft-slo 5s
