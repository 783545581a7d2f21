memory -m gemma-3-27b -g h100 -t 2 -c 32768
