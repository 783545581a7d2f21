sweep --format table
