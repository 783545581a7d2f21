plan -m llama-13b --tpot-slo 100xs
