estimate -m llama-3-8b -g l40s --weight-dtype int4 --kv-dtype fp8 --compute-eff 0.5 --memory-eff 0.9 --overhead 1ms
