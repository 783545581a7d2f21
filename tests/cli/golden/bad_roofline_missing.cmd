roofline -m llama-2-7b
