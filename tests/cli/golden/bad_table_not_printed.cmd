validate tests/data/validation/measurements.csv --format csv --table kernels
