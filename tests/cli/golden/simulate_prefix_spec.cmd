simulate -m llama-3.1-8b -g h100 --rate 20 -n 500 -w chat --shared-prefix 1024:4 --prefix-cache --spec eagle --spec-k 3 --spec-accept 0.7 --format md
