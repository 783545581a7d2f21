roofline -m llama-3.1-405b -g l4
