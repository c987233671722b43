#!/usr/bin/env python3
"""Check ofcd against Kytos-ng's published flow_manager contract.

For every path, method and status the contract documents there is a case
here: a request Kytos-ng answers with that status, sent to ofcd, which must
answer the same; bodies of 200 answers are validated against the
contract's schemas (JSON Schema 2020-12, as OpenAPI 3.1 uses). Each case is
sent on the path and on the path with a trailing slash (Kytos routes both).
A documented status that Kytos' own code cannot produce is listed in
UNREACHABLE with the reason, so the test still fails if the contract gains
a status nobody checks.

  kytos_contract.py CONTRACT.json BASE_URL UP_DPID DOWN_DPID
"""
import json
import sys

import jsonschema

from contract_http import send, uncovered

FM = "/api/kytos/flow_manager/v2"
UNKNOWN = "00:00:00:00:00:00:99:99"

# (path, method, status): why Kytos-ng itself never answers so.
UNREACHABLE = {
    (FM + "/flows", "get", "404"):
        "Kytos answers 404 only when a dpid in the path is unknown",
    (FM + "/stored_flows", "get", "404"):
        "Kytos' list_stored never answers 404 (the route exists)",
}


def flow_from_examples(components):
    """A flow built from the contract's own schema examples."""
    match = {k: v["examples"][0] for k, v in
             components["schemas"]["Match"]["properties"].items() if "examples" in v}
    match.pop("dl_vlan", None)          # an integer example exists too: keep one
    match["dl_vlan"] = 40
    return {"priority": 10, "idle_timeout": 360, "hard_timeout": 1200,
            "cookie": 84114904, "match": match,
            "actions": [components["schemas"]["Actions"]["examples"][0]]}


def cases(up, down, flow):
    """(path, method, status, body, content_type, query)."""
    one = {"flows": [flow]}
    sel = {"flows": [{"cookie": 84114904, "cookie_mask": 18446744073709551615}]}
    bad = {"flows": [{}]}
    return [
        (FM + "/flows", "get", "200", None, None, ""),
        (FM + "/flows/" + up, "get", "200", None, None, ""),
        (FM + "/flows/" + UNKNOWN, "get", "404", None, None, ""),
        (FM + "/flows/" + up, "post", "202", one, "application/json", ""),
        (FM + "/flows", "post", "202", dict(one, switches=[up]), "application/json", ""),
        (FM + "/flows", "post", "400", bad, "application/json", ""),
        (FM + "/flows", "post", "415", one, "text/plain", ""),
        (FM + "/flows/" + up, "post", "400", bad, "application/json", ""),
        (FM + "/flows/" + UNKNOWN, "post", "404", one, "application/json", ""),
        (FM + "/flows/" + down, "post", "424", one, "application/json", ""),
        (FM + "/flows_by_switch", "post", "202", {up: one}, "application/json", ""),
        (FM + "/flows_by_switch", "post", "202", {down: one}, "application/json",
         "force=true"),
        (FM + "/flows_by_switch", "post", "400", {up: bad}, "application/json", ""),
        (FM + "/flows_by_switch", "post", "404", {UNKNOWN: one}, "application/json", ""),
        (FM + "/flows_by_switch", "post", "424", {down: one}, "application/json", ""),
        (FM + "/stored_flows", "get", "200", None, None, ""),
        (FM + "/stored_flows", "get", "200", None, None,
         "dpid=%s&state=installed&state=pending&cookie_range=84114903&cookie_range=84114905"
         % up),
        (FM + "/stored_flows", "get", "400", None, None, "cookie_range=1"),
        (FM + "/stored_flows", "get", "400", None, None, "cookie_range=x&cookie_range=2"),
        (FM + "/flows_by_switch", "delete", "202", {up: sel}, "application/json", ""),
        (FM + "/flows_by_switch", "delete", "400", {up: bad}, "application/json", ""),
        (FM + "/flows_by_switch", "delete", "404", {UNKNOWN: sel}, "application/json", ""),
        (FM + "/flows_by_switch", "delete", "424", {down: sel}, "application/json", ""),
        (FM + "/flows/" + up, "delete", "202", sel, "application/json", ""),
        (FM + "/flows/" + up, "delete", "400", bad, "application/json", ""),
        (FM + "/flows/" + UNKNOWN, "delete", "404", sel, "application/json", ""),
        (FM + "/flows", "delete", "202", dict(sel, switches=[up]), "application/json", ""),
        (FM + "/flows", "delete", "400", bad, "application/json", ""),
        (FM + "/delete", "post", "202", dict(sel, switches=[up]), "application/json", ""),
        (FM + "/delete", "post", "400", bad, "application/json", ""),
        (FM + "/delete/" + up, "post", "202", sel, "application/json", ""),
        (FM + "/delete/" + up, "post", "400", bad, "application/json", ""),
        (FM + "/delete/" + UNKNOWN, "post", "404", sel, "application/json", ""),
    ]


def template_of(path, spec_paths):
    """The contract's path template a concrete path belongs to."""
    for t in spec_paths:
        if t == path:
            return t
        tp, pp = t.split("/"), path.split("/")
        if len(tp) == len(pp) and all(a == b or a.startswith("{") for a, b in zip(tp, pp)):
            return t
    return None


def response_schema(spec, template, method, status):
    r = spec["paths"][template][method]["responses"][status]
    return r.get("content", {}).get("application/json", {}).get("schema")


def check_body(spec, template, method, status, raw):
    schema = response_schema(spec, template, method, status)
    if not schema:
        return None
    doc = json.loads(raw)
    comps = {"components": spec["components"]}
    if template.endswith("/stored_flows"):
        # {"<dpid>": [FlowDoc, ...]}: the contract names the key "switch".
        item = dict(schema["properties"]["switch"], **comps)
        for dpid, flows in doc.items():
            jsonschema.validate(flows, item, cls=jsonschema.Draft202012Validator)
    elif schema.get("$ref", "").endswith("/Flows"):
        # {"<dpid>": {"flows": [Flow, ...]}}: the contract shows one dpid key.
        flows = spec["components"]["schemas"]["Flows"]["properties"]
        per_switch = dict(next(iter(flows.values())), **comps)
        for dpid, v in doc.items():
            jsonschema.validate(v, per_switch, cls=jsonschema.Draft202012Validator)
    else:
        jsonschema.validate(doc, dict(schema, **comps), cls=jsonschema.Draft202012Validator)
    return len(doc)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    base, up, down = sys.argv[2], sys.argv[3], sys.argv[4]
    flow = flow_from_examples(spec["components"])
    todo = cases(up, down, flow)
    failures = []

    documented = {(p, m, s) for p, ms in spec["paths"].items()
                  for m, op in ms.items() for s in op["responses"]}
    covered = set()
    for path, method, status, body, ctype, query in todo:
        t = template_of(path, spec["paths"])
        if t is None or method not in spec["paths"][t]:
            failures.append("case %s %s is not in the contract" % (method, path))
            continue
        covered.add((t, method, status))
        for variant in (path, path + "/"):
            got, raw = send(base, variant, method, body, ctype, query)
            what = "%s %s%s" % (method.upper(), variant, "?" + query if query else "")
            if got != status:
                failures.append("%s: %s, Kytos-ng answers %s: %s" % (what, got, status,
                                                                   raw[:200]))
                continue
            try:
                n = check_body(spec, t, method, status, raw)
            except (jsonschema.ValidationError, ValueError) as e:
                failures.append("%s: body does not fit the contract's schema: %s" % (
                    what, str(e).splitlines()[0]))
                continue
            print("ok: %s -> %s%s" % (what, got, "" if n is None else
                                       " (%d switches, schema valid)" % n))
    uncovered(documented, covered, UNREACHABLE, failures)
    for f in failures:
        print("FAIL:", f)
    print("%d documented (path, method, status), %d checked, %d failures" % (
        len(documented), len(covered), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
