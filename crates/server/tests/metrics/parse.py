"""Reads a /metrics answer from the file named by its argument with the official Prometheus client's parser (the one
Prometheus's own Python tooling uses) and prints every sample as JSON: a list of
{"name", "labels", "value"}, with each family's type under "types". A document the parser
cannot read fails the script."""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families

samples, types = [], {}
for family in text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()):
    types[family.name] = family.type
    for s in family.samples:
        samples.append({"name": s.name, "labels": s.labels, "value": s.value})
json.dump({"types": types, "samples": samples}, sys.stdout)
