report --tp 2,3,4
