calibrate tests/data/validation/one-row.csv -g a100-sxm4-80gb --holdout --format json
