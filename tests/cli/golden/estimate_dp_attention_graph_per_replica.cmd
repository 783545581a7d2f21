estimate -m deepseek-r1 -g b200 -t 1 --ep 8 --dp-attention -b 1024 -p 128 -o 64 -e vllm
