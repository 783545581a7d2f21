import-hf tests/data/hf/bad-heads.json --name x
