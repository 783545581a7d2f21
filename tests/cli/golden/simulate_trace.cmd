simulate -m llama-2-7b -g a10 --trace tests/data/trace.csv --format md
