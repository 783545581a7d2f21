simulate -m llama-3.1-8b -g h100 -n 40 --think 1s-2s --ramp-up 5s -w fixed:256:16
