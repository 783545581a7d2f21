estimate -m llama-2-7b -g a100-sxm4-80gb -b 1 -p 5 -o 100 -e vllm-0.2 --host-cpu-speed 1.62 --ops
