import-hf tests/data/hf/mistral-small-3.1-24b-w4a16.json --name x
