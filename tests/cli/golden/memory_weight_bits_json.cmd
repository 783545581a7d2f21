memory -m llama-3.1-8b -g h100 --weight-bits 4.5 --format json
