estimate -m llama-3.1-70b -g gh200 -t 2 -b 8
