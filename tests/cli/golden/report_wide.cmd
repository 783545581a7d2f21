report --wide
