simulate -m llama-3.1-8b -g h100 --rate 40 -n 800 --instances 4 --router prefix-affinity --shared-prefix 512:8 --prefix-cache --format csv --table instances
