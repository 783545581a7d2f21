show gpu l40s
