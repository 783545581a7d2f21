estimate -m qwen3-next-80b-a3b -g h200 -t 2 -e sglang --format json
