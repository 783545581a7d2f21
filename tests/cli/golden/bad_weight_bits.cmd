estimate -m llama-2-7b -g a100 --weight-bits 0
