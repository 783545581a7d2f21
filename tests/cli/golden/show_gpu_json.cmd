show gpu h100 --format json
