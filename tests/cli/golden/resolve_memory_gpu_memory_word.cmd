memory -m google/gemma-2-9b-it -g "NVIDIA L40S 48GB"
