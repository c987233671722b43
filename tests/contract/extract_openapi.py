#!/usr/bin/env python3
"""Derive the machine-readable contract from an OpenAPI file.

Reads an openapi.yml (Kytos-ng publishes one per NApp) and writes JSON with
what a client can rely on -- paths, methods, parameters (name, in, schema),
request-body and response schemas, status codes and schema examples --
and none of the prose (descriptions, summaries, tags, titles).

  extract_openapi.py OPENAPI.yml SOURCE-NOTE > contract.json
"""
import json
import sys

import yaml

PROSE = {"description", "summary", "tags", "title"}


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k not in PROSE}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spec = yaml.safe_load(f)
    out = {
        "_source": sys.argv[2],
        "openapi": spec.get("openapi"),
        "paths": strip(spec.get("paths", {})),
        "components": strip(spec.get("components", {})),
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
