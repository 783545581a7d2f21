simulate -m llama-3.1-8b -g h100 --workload fixed:512:64 --rate 2 -n 40 --spec eagle3 --spec-k 3 --spec-accept 0.7
