show model llama-2-70b
