plan -m llama-3.1-70b --gpus h100 --tp 4 --users 100 --weight-dtype fp8 --spec eagle3 --spec-accept 0.7 -e sglang -q --format csv --table launch
