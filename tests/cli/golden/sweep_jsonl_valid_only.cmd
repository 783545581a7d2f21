sweep --models llama-2-7b --gpus v100,h100 --tp 1 --batch 1 --prompt 512 --output 128 --act-dtype fp16,bf16,fp8 --valid-only --format jsonl
