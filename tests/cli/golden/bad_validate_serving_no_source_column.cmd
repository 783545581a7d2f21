validate --serving tests/data/bad/serving-no-source.csv
