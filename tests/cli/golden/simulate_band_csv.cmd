simulate -m llama-3.1-8b -g h100 --rate 12 -w fixed:1000:200 --requests 300 --capacity-band 10 --warmup 30 --format csv --table capacity-band
