estimate -m internlm-20b -g a40 -t 8 -b 16 --ops
