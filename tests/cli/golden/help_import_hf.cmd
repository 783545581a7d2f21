import-hf --help
