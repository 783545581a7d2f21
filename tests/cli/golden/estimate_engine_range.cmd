estimate -m llama-2-70b -g a100-sxm4-80gb -t 4 -b 16 -p 1024 -o 512 --engine vllm-0.6 --range
