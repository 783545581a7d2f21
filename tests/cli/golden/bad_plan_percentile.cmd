plan -m llama-13b --slo-percentile p97
