import-hf tests/data/hf/minimax-text-01-hub.json --name minimax-text-01
