memory -m llama-2-7b -g a100 --context 1e15
