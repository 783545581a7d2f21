simulate -m llama-3.1-8b -g h200 --spec draft:nosuch --spec-accept 0.5
