"""Every field of a JSON document llmroof prints is documented: its name appears in docs/json.md
(or, for catalog entries, in docs/catalog.md). Map keys that are data (GPU ids under
best_per_gpu, group names under validate's summary) are not fields.
    python3 json_fields.py DOC_DIR < document.json    exit 1 naming undocumented fields
    python3 json_fields.py DOC_DIR FILE...            the same for each FILE, which must also be
                                                      one valid JSON document; one line per
                                                      failing FILE (one process for many
                                                      documents: Python's start-up dominates)"""
import json
import re
import sys

docs = open(sys.argv[1] + "/json.md").read() + open(sys.argv[1] + "/catalog.md").read()
documented = {}  # key -> bool: a validate document repeats the same keys in hundreds of rows


def is_documented(k):
    if k not in documented:
        documented[k] = bool(re.search(r"`(?:[A-Za-z0-9_.]*\.)?" + re.escape(k) + r"(\[\]|\.[A-Za-z0-9_.]*)?`", docs))
    return documented[k]


def undocumented(doc):
    missing = set()

    def walk(o, path):
        if isinstance(o, dict):
            parent = path[-1] if path else ""
            data_keys = parent == "best_per_gpu" or (len(path) >= 2 and path[-2] == "summary" and parent not in ("all", "by_class"))
            for k, v in o.items():
                if not data_keys and not is_documented(k):
                    missing.add(".".join(path + [k]))
                walk(v, path + [k])
        elif isinstance(o, list):
            for x in o:
                walk(x, path + ["[]"] if not path else path)

    walk(doc, [])
    return missing


if len(sys.argv) == 2:
    missing = undocumented(json.load(sys.stdin))
    if missing:
        print("undocumented in docs/json.md: " + ", ".join(sorted(missing)))
        sys.exit(1)
    sys.exit(0)

bad = 0
for path in sys.argv[2:]:
    try:
        with open(path) as f:
            doc = json.load(f)
    except ValueError as e:
        print(f"{path}: not one valid JSON document ({e})")
        bad = 1
        continue
    missing = undocumented(doc)
    if missing:
        print(f"{path}: undocumented in docs/json.md: " + ", ".join(sorted(missing)))
        bad = 1
sys.exit(bad)
