calibrate tests/data/validation/small.csv -g rtx-4090 --cv source
