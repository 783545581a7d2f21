list models --models-file tests/data/bad/unknown-field.json
