show model llama-3.3-nemotron-super-49b
