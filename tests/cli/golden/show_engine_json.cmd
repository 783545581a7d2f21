show engine tgi --format json
