sweep --models llama-3.2-1b --gpus h100 --tp 1 --batch 1,64 --prompt 128 --output 128 -e hf-transformers --format jsonl
