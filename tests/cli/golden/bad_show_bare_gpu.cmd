show h100
