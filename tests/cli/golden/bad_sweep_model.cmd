sweep --models llama-2-7b,gpt-5
