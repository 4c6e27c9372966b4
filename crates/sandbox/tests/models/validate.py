"""Validates sandbox responses against the official selling-side models.

    python validate.py CASES.json

CASES.json is a list of {model, path, method, status, body}. Each body is checked against the
schema the model declares for that operation and status (Swagger 2.0, validated as JSON Schema
draft 4 with the model's definitions). The models folder is $PP_PROVIDER_MODELS. Exits
non-zero, naming each mismatch, if any response does not match.
"""

import json
import os
import sys

from jsonschema import Draft4Validator

MODELS = os.environ["PP_PROVIDER_MODELS"]
cases = json.load(open(sys.argv[1]))
loaded = {}
bad = []
for c in cases:
    if c["model"] not in loaded:
        loaded[c["model"]] = json.load(open(os.path.join(MODELS, c["model"])))
    model = loaded[c["model"]]
    where = f'{c["method"].upper()} {c["path"]} {c["status"]} ({c["model"]})'
    op = model["paths"].get(c["path"], {}).get(c["method"])
    if op is None:
        bad.append(f"{where}: the model has no such operation")
        continue
    resp = op["responses"].get(str(c["status"]))
    if resp is None:
        bad.append(f"{where}: the model declares no such status")
        continue
    schema = resp.get("schema")
    if schema is None:
        if c["body"] not in (None, "", {}):
            bad.append(f"{where}: the model declares no body, the sandbox sent one")
        continue
    root = dict(schema)
    root["definitions"] = model.get("definitions", {})
    errors = sorted(Draft4Validator(root).iter_errors(c["body"]), key=lambda e: list(e.path))
    for e in errors[:5]:
        bad.append(f"{where}: at {'/'.join(map(str, e.path)) or '(root)'}: {e.message[:300]}")
    if not errors:
        print(f"ok: {where}")
for b in bad:
    print(f"MISMATCH: {b}")
print(f"validated {len(cases)} responses against the models; {len(bad)} mismatches")
sys.exit(1 if bad else 0)
