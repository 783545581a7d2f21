import-hf tests/data/hf/llama-2-7b-nvfp4/config.json --name llama-2-7b-nvfp4
