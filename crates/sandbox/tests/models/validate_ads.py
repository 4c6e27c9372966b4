"""Validates sandbox advertising answers against the Ads API's own OpenAPI 3.0 documents.

    python validate_ads.py CASES.json

CASES.json is a list of {op, path, method, status, media, body}. Each case is matched to the
document (any file in $PP_ADS_MODELS) that declares its path and method, then to the declared
status (or `default`) and media type, and its body is checked against that schema under the
OpenAPI 3.0 rules: `$ref`s into the document resolved, `nullable` allowed where declared,
`oneOf`/`anyOf`/`allOf` as JSON Schema reads them. Prints one JSON line per case:
{"op", "described", "ok", "problems"}.
"""

import json
import os
import sys

import yaml
from jsonschema import Draft4Validator

MODELS = os.environ["PP_ADS_MODELS"]


def load(name):
    raw = open(os.path.join(MODELS, name), "rb").read().decode("utf-8", "replace")
    return yaml.safe_load(raw) if name.endswith((".yaml", ".yml")) else json.loads(raw)


def openapi3(node):
    """OpenAPI 3.0 schema keywords in JSON Schema terms (`nullable`)."""
    if isinstance(node, list):
        return [openapi3(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: openapi3(v) for k, v in node.items()}
    if out.pop("nullable", False):
        if "type" in out and isinstance(out["type"], str):
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


DOCS = {}
for name in sorted(os.listdir(MODELS)):
    if not name.endswith((".json", ".yaml", ".yml")) or "postman" in name.lower():
        continue
    try:
        doc = load(name)
    except Exception:
        continue
    if isinstance(doc, dict) and "paths" in doc and "openapi" in doc:
        DOCS[name] = doc


def find(path, method):
    for name, doc in DOCS.items():
        op = doc["paths"].get(path, {}).get(method)
        if op is not None:
            return name, doc, op
    return None


def deref(doc, node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return node
        target = doc
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def check(c):
    found = find(c["path"], c["method"])
    if found is None:
        return {"op": c["op"], "described": False, "ok": True, "problems": []}
    name, doc, op = found
    where = f'{c["method"].upper()} {c["path"]} {c["status"]} ({name})'
    responses = {str(k): v for k, v in op.get("responses", {}).items()}
    resp = responses.get(str(c["status"])) or responses.get("default")
    if resp is None:
        return {"op": c["op"], "described": True, "ok": False,
                "problems": [f"{where}: the model declares no such status (it has {sorted(responses)})"]}
    resp = deref(doc, resp)
    content = {str(k): v for k, v in (resp.get("content") or {}).items()}
    if not content:
        ok = c["body"] in (None, "", {})
        return {"op": c["op"], "described": True, "ok": ok,
                "problems": [] if ok else [f"{where}: the model declares no body, the sandbox sent one"]}
    media = (c.get("media") or "").split(";")[0].strip()
    entry = content.get(media)
    if entry is None:
        return {"op": c["op"], "described": True, "ok": False,
                "problems": [f"{where}: answered as {media or 'nothing'}, the model has {sorted(content)}"]}
    schema = entry.get("schema")
    if schema is None:
        return {"op": c["op"], "described": True, "ok": True, "problems": []}
    root = openapi3(dict(schema))
    root["components"] = openapi3(doc.get("components", {}))
    errors = sorted(Draft4Validator(root).iter_errors(c["body"]), key=lambda e: list(e.path))
    problems = [f"{where}: at {'/'.join(map(str, e.path)) or '(root)'}: {e.message[:240]}" for e in errors[:5]]
    return {"op": c["op"], "described": True, "ok": not errors, "problems": problems}


for c in json.load(open(sys.argv[1])):
    print(json.dumps(check(c)))
