"""Every field of a JSON document llmroof prints is documented: its name appears in docs/json.md
(or, for catalog entries, in docs/catalog.md). Map keys that are data (GPU ids under
best_per_gpu, group names under validate's summary) are not fields.
    python3 json_fields.py DOC_DIR < document.json    exit 1 naming undocumented fields"""
import json
import re
import sys

docs = open(sys.argv[1] + "/json.md").read() + open(sys.argv[1] + "/catalog.md").read()
doc = json.load(sys.stdin)
missing = set()


def walk(o, path):
    if isinstance(o, dict):
        parent = path[-1] if path else ""
        data_keys = parent == "best_per_gpu" or (len(path) >= 2 and path[-2] == "summary" and parent not in ("all", "by_class"))
        for k, v in o.items():
            if not data_keys and not re.search(r"`(?:[A-Za-z0-9_.]*\.)?" + re.escape(k) + r"(\[\]|\.[A-Za-z0-9_.]*)?`", docs):
                missing.add(".".join(path + [k]))
            walk(v, path + [k])
    elif isinstance(o, list):
        for x in o:
            walk(x, path + ["[]"] if not path else path)


walk(doc, [])
if missing:
    print("undocumented in docs/json.md: " + ", ".join(sorted(missing)))
    sys.exit(1)
