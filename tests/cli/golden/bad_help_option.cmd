help --format json
