calibrate tests/data/validation/calibrate-dropped-row.csv -g h100
