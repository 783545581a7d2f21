memory -m llama-3.1-70b -g h100 -t 4 --spec draft:llama-3.2-1b --format json
