sweep --models kimi-linear-48b-a3b,llama-2-7b --gpus h100 -t 2 -b 1 -p 1000 -o 3000 --state-dtype fp16,fp32
