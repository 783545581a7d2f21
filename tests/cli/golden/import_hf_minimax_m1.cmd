import-hf tests/data/hf/minimax-m1.json --name minimax-m1
