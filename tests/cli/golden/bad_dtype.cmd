estimate -m llama-2-7b -g a100 --weight-dtype fp3
