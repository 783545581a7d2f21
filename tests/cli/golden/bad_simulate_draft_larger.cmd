simulate -m llama-3.1-8b -t 2 -g h200 --spec draft:llama-3.1-70b --spec-accept 0.5
