show gpu A100
