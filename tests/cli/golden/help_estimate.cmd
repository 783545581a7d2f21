estimate --help
