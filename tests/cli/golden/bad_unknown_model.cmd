show model lama-2-7b
