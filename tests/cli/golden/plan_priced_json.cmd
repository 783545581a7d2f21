plan -m llama-2-70b --gpus a100-sxm4-80gb,h100 --tp 2,4,8 --users 5000 --price a100-sxm4-80gb=1.8,h100=3.5 --format json
