estimate -m llama-2-7b -g a100-sxm4-80gb -e autoawq --weight-dtype int4 -p 2048 -o 2
