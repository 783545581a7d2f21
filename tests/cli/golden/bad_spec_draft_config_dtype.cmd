estimate -m deepseek-v3 -g h200 -t 8 --spec eagle3 --spec-k 3 --spec-accept 0.7 --spec-draft-config tests/data/draft/bad-dtype.json
