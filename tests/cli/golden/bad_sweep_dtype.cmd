sweep --kv-dtype fp16,fp3
