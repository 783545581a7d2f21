estimate -m llama-13b -g a100 -e tgi-0.8 -b 2 -p 512 -o 128
