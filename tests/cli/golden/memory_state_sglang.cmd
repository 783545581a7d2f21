memory -m nemotron-nano-9b-v2 -g h100 -e sglang
