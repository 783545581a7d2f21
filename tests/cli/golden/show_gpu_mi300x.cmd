show gpu mi300x --format csv
