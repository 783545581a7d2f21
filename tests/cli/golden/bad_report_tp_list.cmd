report --tp 2,four
