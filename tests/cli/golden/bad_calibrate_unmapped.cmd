calibrate tests/data/validation/unmapped.csv -g a100-sxm4-80gb
