simulate -m llama-2-7b -g a100 --trace tests/data/trace-past-context.csv
