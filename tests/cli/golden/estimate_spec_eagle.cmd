estimate -m llama-3.1-70b -g h100 -t 4 -b 1 -p 1024 -o 256 --spec eagle --spec-accept 0.7
