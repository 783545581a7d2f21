estimate --models-file tests/cli/golden/dense-fp8.models.json -m qwen3-8b-fp8 -g h100 -b 8
