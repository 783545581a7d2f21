help show plan
