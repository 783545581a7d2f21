import-hf tests/data/hf/mamba.json --name mb
