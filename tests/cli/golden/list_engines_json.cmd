list engines --format json
