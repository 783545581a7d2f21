validate tests/data/validation/small.csv --format csv --table kernels
