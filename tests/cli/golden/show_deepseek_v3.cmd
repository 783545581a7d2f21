show model deepseek-v3
