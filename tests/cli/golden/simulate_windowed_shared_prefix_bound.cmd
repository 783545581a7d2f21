simulate -m gpt-oss-120b -g h100 --shared-prefix 2048 --prefix-cache -r 12 -n 1000
