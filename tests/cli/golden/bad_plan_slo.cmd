plan -m llama-13b --ttft-slo 3 seconds
