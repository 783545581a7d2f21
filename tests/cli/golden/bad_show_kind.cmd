show card a100
