show gpu h100 --format csv
