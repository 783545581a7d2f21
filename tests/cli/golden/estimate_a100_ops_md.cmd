estimate -m internlm-20b -g a100 -t 8 -b 16 --ops --format md
