memory -m llama-3-8b -g h100 --weight-dtype int4 -e llama.cpp-2024-06 --format json
