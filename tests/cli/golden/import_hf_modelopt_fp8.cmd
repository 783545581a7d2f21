import-hf tests/data/hf/llama-2-7b-modelopt-fp8.json --name llama-2-7b-fp8
