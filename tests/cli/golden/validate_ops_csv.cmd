validate --ops tests/data/ops/sample-synthetic.csv -g h100 --format csv
