show gpu h100 --format md
