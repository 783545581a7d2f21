estimate -m deepseek-v3.2-exp -g h200 -t 8 -b 64 -p 8192 -o 1024 -e vllm
