estimate -m llama-3.1-8b -g h100 --spec medusa --spec-k 64 --spec-accept 0.5
