report -m llama-2-7b --gpus a100-sxm4-80gb,h100 --tp 1,2 -e tgi-0.8 -b 40 -p 1024 -o 1024 --format csv
