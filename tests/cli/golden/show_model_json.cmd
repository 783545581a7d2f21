show model mixtral-8x7b --format json
