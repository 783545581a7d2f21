memory -m llama-13b -g a100 -e tgi-0.8 --format json
