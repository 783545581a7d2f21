validate tests/data/ops/steps-sample-synthetic.csv --format csv
