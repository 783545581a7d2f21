estimate -m llama-2-7b -g rtx-4090 --weight-dtype int4 --weight-bits 4.5 --engine llama.cpp-2024-05 -p 512 -o 128
