import-hf tests/data/hf/bad-unknown-fields-many.json --name x
