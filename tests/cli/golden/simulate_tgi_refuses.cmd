simulate -m llama-3.1-70b -g mi300x -t 4 -e tgi --rate 32 -n 300 -w sharegpt -q
