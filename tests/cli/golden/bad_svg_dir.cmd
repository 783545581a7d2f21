report --svg-dir /nonexistent/dir
