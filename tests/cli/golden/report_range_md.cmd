report --range --format md
