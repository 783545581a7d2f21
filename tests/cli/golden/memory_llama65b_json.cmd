memory -m llama-65b -g v100 -t 8 --mem-util 1 --reserve 0 --workspace 0 --format json
