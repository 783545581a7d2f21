sweep --models llama-2-7b --gpus h100 --state-dtype int4
