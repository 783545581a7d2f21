memory -m llama-13b -g a100-sxm4-40gb -e vllm-0.2
