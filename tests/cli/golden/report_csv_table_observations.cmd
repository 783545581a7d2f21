report --format csv --table observations
