estimate -m internlm-20b -g a100 -t 3
