roofline -m llama-2-7b -g a100 --svg /dev/full
