import-hf tests/data/hf/bad-ct-group.json --name x
