estimate -m llama-2-7b -g a100 --engine vllm-9
