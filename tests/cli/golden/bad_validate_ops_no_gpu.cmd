validate --ops tests/data/ops/sample-synthetic.csv
