report -m llama-3.1-70b --gpus h100,a100-sxm4-80gb --tp 4 --weight-dtype fp8 -b 32 -p 2048 -o 512
