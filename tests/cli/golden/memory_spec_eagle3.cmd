memory -m llama-3.1-8b -g h100 --spec eagle3
