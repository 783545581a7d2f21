import-hf tests/data/hf/ct-partial-ignore.json --name x
