validate tests/data/bad/measurements-no-source.csv
