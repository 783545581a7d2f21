report --format csv
