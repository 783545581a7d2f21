#!/bin/sh
# Runs every example of README.md against BUILD/llmroof and compares the output (tests/readme.py
# says how "..." elides lines). ctest runs it as readme_examples.
#   sh tests/readme.sh BUILD            check
#   sh tests/readme.sh --update BUILD   rewrite README.md's outputs from the current binary
exec python3 "$(dirname "$0")/readme.py" "$@"
