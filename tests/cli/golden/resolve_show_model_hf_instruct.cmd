show model meta-llama/Llama-3.1-70B-Instruct
