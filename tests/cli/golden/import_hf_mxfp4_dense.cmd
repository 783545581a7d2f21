import-hf tests/data/hf/llama-2-7b-mxfp4.json --name x
