estimate -m llama-2-7b -g a100-sxm4-80gb -p 128 -o 16 --engine lmdeploy-0.1
