plan -m llama-13b --ttft-slo 0s
