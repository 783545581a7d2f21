calibrate tests/data/validation/header-only.csv -g a100-sxm4-80gb
