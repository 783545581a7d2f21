report --format json
