show model kimi-linear-48b-a3b
