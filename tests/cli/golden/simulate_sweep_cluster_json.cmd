simulate -m llama-3.1-8b -g h100 --instances 2 --sweep-rate 2,4 --requests 50 -q --format json
