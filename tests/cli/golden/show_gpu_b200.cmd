show gpu b200
