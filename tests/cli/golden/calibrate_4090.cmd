calibrate tests/data/validation/measurements.csv -g rtx-4090 --holdout
