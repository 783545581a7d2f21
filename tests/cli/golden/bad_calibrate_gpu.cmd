calibrate tests/data/validation/measurements.csv -g a40
