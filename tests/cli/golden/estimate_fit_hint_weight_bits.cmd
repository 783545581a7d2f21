estimate -m llama-2-70b -g a100 --weight-bits 4.5
