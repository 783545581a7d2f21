estimate -m llama3.1-8b -g "NVIDIA H100 80GB HBM3" -b 8
