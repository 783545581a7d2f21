estimate -m llama-3.1-8b -g h100 --weight-dtype int4 --weight-bits 16
