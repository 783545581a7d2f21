calibrate tests/data/validation/small.csv -g a40
