estimate -m kimi-k2 -g h200 -t 8 --spec eagle3 --spec-k 3 --spec-accept 0.7 --spec-draft-config tests/data/draft/deepseek-v3-eagle3.json
