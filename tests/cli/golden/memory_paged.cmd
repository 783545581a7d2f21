memory -m llama-2-7b -g a100 --context 4000 --block-size 16 --reserve 512MiB --workspace 1.5GiB
