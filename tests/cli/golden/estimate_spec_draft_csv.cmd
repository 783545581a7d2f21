estimate -m llama-3.1-70b -g h100 -t 4 -b 8 --spec draft:llama-3.2-1b --spec-accept 0.7 --format csv --table phases
