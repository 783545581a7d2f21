import-hf tests/data/hf/bad-ct-bits.json --name x
