estimate -m llama-3.3-nemotron-super-49b -g h100 -t 2 --weight-dtype fp8 -b 16 -p 2048 -o 256
