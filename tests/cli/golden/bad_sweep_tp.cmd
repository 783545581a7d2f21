sweep --tp 1,0
