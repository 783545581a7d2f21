estimate -m llama-3.1-70b -g h100 -t 4 --weight-dtype fp8 --spec draft:llama-3.2-1b --spec-k 4 --spec-accept 0.6
