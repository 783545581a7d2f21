report --format md
