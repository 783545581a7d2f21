import-hf tests/data/hf/bad-attn-type-list-type.json --name x
