import-hf tests/data/hf/bad-modelopt-no-algo.json --name x
