sweep --models deepseek-v3 --gpus h200 --tp 8 --ep 8 --batch 8 --prompt 512 --output 64 --weight-dtype fp8 --engine vllm-0.6,sglang,tgi
