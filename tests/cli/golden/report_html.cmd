report --format html
