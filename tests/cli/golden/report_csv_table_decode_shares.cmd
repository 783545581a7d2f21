report --format csv --table decode_shares
