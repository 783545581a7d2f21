show model jamba-v0.1
