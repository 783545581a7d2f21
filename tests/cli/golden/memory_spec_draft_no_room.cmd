memory -m llama-3.1-70b -g h100 -t 2 --spec draft:llama-3.1-8b
