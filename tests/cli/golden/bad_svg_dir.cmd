report --svg-dir README.md/charts
