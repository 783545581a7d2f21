roofline -m llama-3.1-8b -g mi300x --tp 2 -b 64 -p 1024 -o 256
