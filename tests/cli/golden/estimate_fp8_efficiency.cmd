estimate -m llama-3.1-70b -g mi300x -t 8 -b 64 --weight-dtype fp8 --act-dtype fp8
