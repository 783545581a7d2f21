roofline -m llama-2-7b -g a100-sxm4-80gb -b 8
