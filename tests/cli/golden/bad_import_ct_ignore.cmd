import-hf tests/data/hf/bad-ct-ignore.json --name x
