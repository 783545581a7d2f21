simulate -m internlm-20b -g a100 -t 8 --concurrency 20 --requests 250
