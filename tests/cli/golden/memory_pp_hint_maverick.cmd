memory -m llama-4-maverick -g h100 -t 8 -e vllm -c 32768
