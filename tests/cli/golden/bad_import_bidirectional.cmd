import-hf tests/data/hf/bad-bidirectional.json --name x
