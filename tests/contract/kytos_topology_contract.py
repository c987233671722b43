#!/usr/bin/env python3
"""Check ofcd against Kytos-ng's published topology and of_lldp contracts.

For every path, method and status the two contracts document there is a
case here: a request Kytos-ng's own code (topology's and of_lldp's main.py)
answers with that status, sent to ofcd, which must answer the same; bodies
of 200 and 201 answers are validated against the contract's schemas. A
documented status that Kytos' code cannot produce is listed in UNREACHABLE
with the reason, so the test fails if a contract gains a status nobody
checks. A few cases use a status Kytos answers that its contract does not
list (link enable/disable, deleting a metadata key): they are checked as
Kytos answers them and reported as such.

Where Kytos' own answers do not fit the schema its contract publishes,
KYTOS_SHAPE says what Kytos sends instead (built from the contract's own
component schemas) and SCHEMA_FIXES the fields whose type Kytos gives
differently; both say why.

Each case is sent on the path and on the path with its trailing slash
toggled (Kytos routes both, ofcd too), except where ONE_FORM says why not.
A one-shot change (deleting something) names a second object for the other
form. The cases run in order: each finds the state the ones before left.

Kytos is taken as run with enable_entities_by_default (kytosd -E), as ofcd
behaves: a switch or interface is enabled until disabled. (Without it Kytos
starts them disabled and some 409s below would be 200s.) of_lldp's VLAN is
its default, 3799.

  kytos_topology_contract.py TOPOLOGY.json OF_LLDP.json BASE_URL \
      UP_A UP_B GONE_A GONE_B DOWN_A DOWN_B

UP_A, UP_B: dpids of two connected, enabled switches with a link between
them. GONE_A, GONE_B: dpids of two switches ofcd knows, each with a link
to UP_B, that were disabled while connected (so their LLDP flow went) and
are now disconnected; the script deletes their links and them. DOWN_A,
DOWN_B: ids of two interfaces of UP_A that are down (no carrier) and have
no link; the script deletes them.
"""
import copy
import json
import sys

import jsonschema

from contract_http import send, uncovered

T = "/api/kytos/topology"
L = "/api/kytos/of_lldp"
UNKNOWN = "00:00:00:00:00:00:99:99"
UNKNOWN_LINK = "f" * 64
JSON = "application/json"
LLDP_VLAN = 3799            # of_lldp's settings.FLOW_VLAN_VID

# (path, method, status): why Kytos-ng itself never answers so.
UNREACHABLE = {
    (T + "/v3/switches/{dpid}/metadata/{key}", "delete", "201"):
        "Kytos' delete_switch_metadata answers 200 (checked here as such)",
    (T + "/v3/interfaces/{interface_id}/metadata/{key}", "delete", "201"):
        "Kytos' delete_interface_metadata answers 200 (checked here as such)",
    (T + "/v3/links/{link_id}/metadata/{key}", "delete", "201"):
        "Kytos' delete_link_metadata answers 200 (checked here as such)",
    (T + "/v3/links/{link_id}/enable", "post", "200"):
        "Kytos' enable_link answers 201 (checked here as such)",
    (T + "/v3/links/{link_id}/disable", "post", "200"):
        "Kytos' disable_link answers 201 (checked here as such)",
}

# Paths a case is sent on in the contract's form only. Kytos routes both
# forms, but these handlers validate the request against openapi.yml first
# (kytos.core's validate_openapi) and openapi-core finds no path for the
# slashed form: Kytos answers 400 "Path not found" to any request there.
_VALIDATED = ("Kytos validates the request against its openapi.yml, where the "
              "slashed path is not found: every request there answers 400")
ONE_FORM = {
    T + "/v3/interfaces/tag_ranges": _VALIDATED,
    T + "/v3/interfaces/{interface_id}/tag_ranges": _VALIDATED,
    T + "/v3/interfaces/{interface_id}/special_tags": _VALIDATED,
}

# (contract, path under components): the schema Kytos' values fit, and why.
SCHEMA_FIXES = [
    ("topology", ("schemas", "Interface", "properties", "speed"), {"type": ["number", "null"]},
     "Kytos' Interface.as_dict gives the speed in bytes per second, a number, or null when "
     "unknown; the contract says string"),
    ("of_lldp", ("schemas", "LivenessInterface", "properties", "last_hello_at"),
     {"type": ["string", "null"]},
     "of_lldp answers null until the first hello; the contract says string"),
]


def _by_id(ref):
    return {"type": "object", "additionalProperties": {"$ref": ref}}


def _placeholder(key):
    """The contract shows one entry named `key`; Kytos keys by real ids."""
    return lambda schema: {"type": "object",
                           "additionalProperties": schema["properties"][key]}


SWITCHES = _by_id("#/components/schemas/Switch")
LINKS = _by_id("#/components/schemas/Link")

# (path, method, status): (what Kytos' code answers instead of the
# contract's schema, the schema of that answer given the contract's).
KYTOS_SHAPE = {
    (T + "/v3/", "get", "200"): (
        "Kytos answers {'topology': {'switches': {id: Switch}, 'links': {id: Link}}}; "
        "the contract shows top-level arrays",
        lambda _: {"type": "object", "required": ["topology"], "properties": {"topology": {
            "type": "object", "required": ["switches", "links"],
            "properties": {"switches": SWITCHES, "links": LINKS}}}}),
    (T + "/v3/switches", "get", "200"): (
        "Kytos answers {'switches': {dpid: Switch}}; the contract shows an array",
        lambda _: {"type": "object", "required": ["switches"],
                   "properties": {"switches": SWITCHES}}),
    (T + "/v3/links", "get", "200"): (
        "Kytos answers {'links': {id: Link}}; the contract shows an array",
        lambda _: {"type": "object", "required": ["links"], "properties": {"links": LINKS}}),
    (T + "/v3/interfaces/tag_ranges", "get", "200"): (
        "keyed by interface id; the contract names the key interface_id",
        _placeholder("interface_id")),
    (T + "/v3/interfaces/{interface_id}/tag_ranges", "get", "200"): (
        "keyed by the interface's id; the contract names the key interface_id",
        _placeholder("interface_id")),
    (L + "/v1/interfaces/", "get", "200"): (
        "of_lldp answers {'interfaces': [id, ...]}; the contract shows an array of Lista",
        lambda _: {"type": "object", "required": ["interfaces"], "properties": {
            "interfaces": {"type": "array", "items": {"type": "string"}}}}),
    (L + "/v1/interfaces/enable/", "post", "200"): (
        "of_lldp answers a JSON string; the contract shows a Lista object",
        lambda _: {"type": "string"}),
    (L + "/v1/interfaces/disable/", "post", "200"): (
        "of_lldp answers a JSON string; the contract shows a Lista object",
        lambda _: {"type": "string"}),
    (L + "/v1/polling_time", "post", "200"): (
        "of_lldp answers a JSON string; the contract shows a Lista object",
        lambda _: {"type": "string"}),
}


class Case:
    """One request and the status Kytos answers it with.

    alt: the path for the toggled form, when the first one used up its
    object; then: (what must hold of the answer, predicate on the JSON)."""

    def __init__(self, path, method, status, body=None, query="", ctype=None, alt=None,
                 then=None):
        self.path, self.method, self.status = path, method, status
        self.body, self.query, self.alt, self.then = body, query, alt, then
        self.ctype = ctype or (JSON if body is not None else None)


def discover(base, up_a, up_b, gone_a, gone_b):
    """Link ids and interface ids, from GET links: {name: value}."""
    _, raw = send(base, T + "/v3/links", "get", None, None, "")
    links = json.loads(raw)["links"]
    ends = {}
    for lid, l in links.items():
        a, b = l["endpoint_a"], l["endpoint_b"]
        ends[frozenset((a["switch"], b["switch"]))] = (lid, {a["switch"]: a["id"],
                                                            b["switch"]: b["id"]})
    ctx = {}
    for name, x, y in (("ab", up_a, up_b), ("ga", gone_a, up_b), ("gb", gone_b, up_b)):
        key = frozenset((x, y))
        if key not in ends:
            sys.exit("no link between %s and %s in GET links: %s" % (x, y, sorted(links)))
        ctx["link_" + name], by_sw = ends[key]
        ctx["if_" + name] = by_sw[x]          # the end on the first switch
        ctx["if_" + name + "_far"] = by_sw[y]
    _, raw = send(base, L + "/v1/polling_time", "get", None, None, "")
    ctx["polling"] = json.loads(raw)["polling_time"]
    return ctx


def has(doc, *keys):
    for k in keys:
        doc = doc[k]
    return doc


def cases(up_a, up_b, gone_a, gone_b, down_a, down_b, c):
    """The requests, in an order where each finds the state it needs."""
    sw, ifc, lk = T + "/v3/switches/", T + "/v3/interfaces/", T + "/v3/links/"
    ia, ib = c["if_ab"], c["if_ab_far"]          # the two ends of link ab
    lab = c["link_ab"]
    meta = {"owner": "contract", "k1": 1, "k2": "two"}
    # of_lldp takes its VLAN (3799) from every interface of an enabled
    # switch: new ranges must keep it, and it is never available.
    ranges = {"tag_type": "vlan", "tag_ranges": [[1, 100], 200, LLDP_VLAN]}
    lldp_out = [[1, LLDP_VLAN - 1], [LLDP_VLAN + 1, 4094]]
    special = {"tag_type": "vlan", "special_tags": ["any"]}
    default_special = {"tag_type": "vlan", "special_tags": ["untagged", "any"]}
    lldp = L + "/v1/"
    return [
        # Reads of the whole.
        Case(T + "/v3/", "get", "200"),
        Case(T + "/v3/switches", "get", "200",
             then=("both connected switches listed",
                   lambda d: up_a in d["switches"] and up_b in d["switches"])),
        Case(T + "/v3/interfaces", "get", "200",
             then=("%s listed, %s and %s inactive" % (ia, down_a, down_b),
                   lambda d: ia in d["interfaces"] and not d["interfaces"][down_a]["active"]
                   and not d["interfaces"][down_b]["active"])),
        Case(T + "/v3/links", "get", "200"),
        Case(T + "/v3/interfaces/tag_ranges", "get", "200",
             then=("%s listed" % ia, lambda d: ia in d)),

        # Metadata: switch, interface, link. A key deleted once is gone:
        # the toggled form deletes the other key, then both answer 404.
        Case(sw + up_a + "/metadata", "get", "200"),
        Case(sw + UNKNOWN + "/metadata", "get", "404"),
        Case(sw + up_a + "/metadata", "post", "201", meta),
        Case(sw + UNKNOWN + "/metadata", "post", "404", meta),
        Case(sw + up_a + "/metadata", "get", "200",
             then=("the posted keys are kept", lambda d: has(d, "metadata", "k2") == "two")),
        Case(sw + up_a + "/metadata/k1", "delete", "200", alt=sw + up_a + "/metadata/k2"),
        Case(sw + up_a + "/metadata/k1", "delete", "404"),
        Case(sw + UNKNOWN + "/metadata/k1", "delete", "404"),
        Case(ifc + ia + "/metadata", "get", "200"),
        Case(ifc + up_a + ":99/metadata", "get", "404"),
        Case(ifc + ia + "/metadata", "post", "201", meta),
        Case(ifc + UNKNOWN + ":1/metadata", "post", "404", meta),
        Case(ifc + ia + "/metadata/k1", "delete", "200", alt=ifc + ia + "/metadata/k2"),
        Case(ifc + ia + "/metadata/k1", "delete", "404"),
        Case(ifc + up_a + ":99/metadata/k1", "delete", "404"),
        Case(lk + lab + "/metadata", "get", "200"),
        Case(lk + UNKNOWN_LINK + "/metadata", "get", "404"),
        Case(lk + lab + "/metadata", "post", "201", meta),
        Case(lk + UNKNOWN_LINK + "/metadata", "post", "404", meta),
        Case(lk + lab + "/metadata/k1", "delete", "200", alt=lk + lab + "/metadata/k2"),
        Case(lk + lab + "/metadata/k1", "delete", "404"),
        Case(lk + UNKNOWN_LINK + "/metadata/k1", "delete", "404"),

        # Switches: an enabled switch is not deleted; disabled with links,
        # still not; enabled again. Kytos' disable also disabled link ab.
        Case(sw + UNKNOWN + "/enable", "post", "404"),
        Case(sw + UNKNOWN + "/disable", "post", "404"),
        Case(sw + UNKNOWN, "delete", "404"),
        Case(sw + up_a, "delete", "409"),
        Case(sw + up_a + "/disable", "post", "201"),
        Case(sw + up_a, "delete", "409"),
        Case(sw + up_a + "/enable", "post", "201"),

        # Links: enable (Kytos answers 201), disable, enable again; an
        # enabled link is not deleted.
        Case(lk + lab + "/enable", "post", "201"),
        Case(lk + UNKNOWN_LINK + "/enable", "post", "404"),
        Case(lk + lab + "/disable", "post", "201"),
        Case(lk + UNKNOWN_LINK + "/disable", "post", "404"),
        Case(lk + lab + "/enable", "post", "201"),
        Case(lk + lab, "delete", "409"),
        Case(lk + UNKNOWN_LINK, "delete", "404"),

        # Interfaces: disabled and enabled one by one and a switch's at
        # once; enabling a disabled switch's interfaces is refused.
        Case(ifc + ia + "/disable", "post", "200"),
        Case(ifc + up_a + ":99/disable", "post", "404"),
        Case(ifc + UNKNOWN + ":1/disable", "post", "404"),
        Case(ifc + ia + "/enable", "post", "200"),
        Case(ifc + up_a + ":99/enable", "post", "404"),
        Case(ifc + "switch/" + up_a + "/disable", "post", "200"),
        Case(ifc + "switch/" + UNKNOWN + "/disable", "post", "404"),
        Case(ifc + "switch/" + up_a + "/enable", "post", "200"),
        Case(ifc + "switch/" + UNKNOWN + "/enable", "post", "404"),
        Case(ifc + "switch/" + gone_a + "/enable", "post", "409"),
        Case(lk + lab + "/enable", "post", "201"),    # Kytos disabled it with the interface
        Case(ifc + ia, "delete", "409"),              # enabled, active, with a link
        Case(ifc + up_a + ":x", "delete", "400"),
        Case(ifc + up_a + ":99", "delete", "404"),
        Case(ifc + UNKNOWN + ":1", "delete", "404"),
        Case(ifc + up_a + ":4294967294", "delete", "409"),   # LOCAL, enabled
        # A down interface: refused while enabled; disabled, deleted.
        Case(ifc + down_a, "delete", "409"),
        Case(ifc + down_a + "/disable", "post", "200"),
        Case(ifc + down_b + "/disable", "post", "200"),
        Case(ifc + down_a, "delete", "200", alt=ifc + down_b),
        Case(ifc + down_a, "delete", "404"),
        Case(ifc + down_a + "/metadata", "get", "404"),
        Case(T + "/v3/interfaces", "get", "200",
             then=("the deleted interfaces are gone",
                   lambda d: down_a not in d["interfaces"] and down_b not in d["interfaces"])),

        # Tags on one interface: set, refused, back to the default.
        Case(ifc + ia + "/tag_ranges", "get", "200",
             then=("Kytos' default ranges, of_lldp's VLAN not available",
                   lambda d: has(d, ia, "tag_ranges", "vlan") == [[1, 4094]] and
                   has(d, ia, "available_tags", "vlan") == lldp_out)),
        Case(ifc + up_a + ":99/tag_ranges", "get", "404"),
        Case(ifc + ia + "/tag_ranges", "post", "200", ranges),
        Case(ifc + ia + "/tag_ranges", "get", "200",
             then=("the ranges set, all but of_lldp's VLAN available",
                   lambda d: has(d, ia, "tag_ranges", "vlan") ==
                   [[1, 100], [200, 200], [LLDP_VLAN, LLDP_VLAN]] and
                   has(d, ia, "available_tags", "vlan") == [[1, 100], [200, 200]])),
        Case(ifc + ia + "/tag_ranges", "post", "400",        # leaves out a VLAN in use
             {"tag_type": "vlan", "tag_ranges": [[1, 100], 200]}),
        Case(ifc + ia + "/tag_ranges", "post", "400",
             {"tag_type": "vlan", "tag_ranges": [[100, 1]]}),
        Case(ifc + ia + "/tag_ranges", "post", "400",
             {"tag_type": "vlan", "tag_ranges": [[1, 10], [5, 20]]}),
        Case(ifc + ia + "/tag_ranges", "post", "400", {"tag_type": "vlan"}),
        Case(ifc + ia + "/tag_ranges", "post", "400",
             {"tag_type": "mpls", "tag_ranges": [[1, 100]]}),
        Case(ifc + up_a + ":99/tag_ranges", "post", "404", ranges),
        Case(ifc + ia + "/tag_ranges", "delete", "200"),
        Case(ifc + ia + "/tag_ranges", "get", "200",
             then=("Kytos' default ranges again, of_lldp's VLAN still in use",
                   lambda d: has(d, ia, "tag_ranges", "vlan") == [[1, 4094]] and
                   has(d, ia, "available_tags", "vlan") == lldp_out)),
        Case(ifc + ia + "/tag_ranges", "delete", "400", query="tag_type=mpls"),
        Case(ifc + up_a + ":99/tag_ranges", "delete", "404"),
        Case(ifc + ia + "/special_tags", "post", "200", special),
        Case(ifc + ia + "/tag_ranges", "get", "200",
             then=("special_tags are ['any']",
                   lambda d: has(d, ia, "special_tags", "vlan") == ["any"])),
        Case(ifc + ia + "/special_tags", "post", "200", default_special),
        Case(ifc + ia + "/special_tags", "post", "400",
             {"tag_type": "vlan", "special_tags": ["bogus"]}),
        Case(ifc + ia + "/special_tags", "post", "400",
             {"tag_type": "vlan", "special_tags": ["any", "any"]}),
        Case(ifc + ia + "/special_tags", "post", "400", {"tag_type": "vlan"}),
        Case(ifc + up_a + ":99/special_tags", "post", "404", default_special),

        # of_lldp: LLDP off and on again, liveness on and off, the polling
        # time set to what it is.
        Case(lldp + "interfaces/", "get", "200",
             then=("%s listed" % ia, lambda d: ia in d["interfaces"])),
        Case(lldp + "interfaces/disable/", "post", "200", {"interfaces": [ia]}),
        Case(lldp + "interfaces/", "get", "200",
             then=("%s no longer listed" % ia, lambda d: ia not in d["interfaces"])),
        Case(lldp + "interfaces/disable/", "post", "400", {"interfaces": [UNKNOWN + ":1"]}),
        Case(lldp + "interfaces/enable/", "post", "200", {"interfaces": [ia]}),
        Case(lldp + "interfaces/enable/", "post", "400", {"interfaces": [UNKNOWN + ":1"]}),
        Case(lldp + "liveness/enable/", "post", "400", {"interfaces": []}),
        Case(lldp + "liveness/enable/", "post", "404", {"interfaces": [UNKNOWN + ":1"]}),
        Case(lldp + "liveness/enable/", "post", "200", {"interfaces": [ia, ib]}),
        Case(lldp + "liveness/", "get", "200",
             then=("both ends listed", lambda d: {ia, ib} <= {i["id"] for i in d["interfaces"]})),
        Case(lldp + "liveness/pair", "get", "200"),
        Case(lldp + "liveness/disable/", "post", "400", {"interfaces": []}),
        Case(lldp + "liveness/disable/", "post", "404", {"interfaces": [UNKNOWN + ":1"]}),
        Case(lldp + "liveness/disable/", "post", "200", {"interfaces": [ia, ib]}),
        Case(lldp + "polling_time", "get", "200"),
        Case(lldp + "polling_time", "post", "200", {"polling_time": c["polling"]}),
        Case(lldp + "polling_time", "post", "400", {"polling_time": 0}),
        Case(lldp + "polling_time", "post", "400", {}),

        # The gone switches: a disabled switch with links is kept; its
        # links disabled and deleted, then the switch itself.
        Case(sw + gone_a, "delete", "409"),
        Case(lk + c["link_ga"] + "/disable", "post", "201"),
        Case(lk + c["link_gb"] + "/disable", "post", "201"),
        Case(lk + c["link_ga"], "delete", "200", alt=lk + c["link_gb"]),
        Case(lk + c["link_ga"], "delete", "404"),
        Case(sw + gone_a, "delete", "200", alt=sw + gone_b),
        Case(sw + gone_a, "delete", "404"),
        Case(sw + gone_a + "/enable", "post", "404"),
        Case(T + "/v3/switches", "get", "200",
             then=("the deleted switches are gone",
                   lambda d: gone_a not in d["switches"] and gone_b not in d["switches"])),
    ]


def split_api(path, contracts):
    for name, (spec, prefix) in contracts.items():
        if path.startswith(prefix + "/"):
            return name, spec, prefix, path[len(prefix):]
    return None, None, None, None


def template_of(rel, method, spec_paths):
    """The contract's path template a concrete path (either form) is for:
    a literal one first, else the one with the fewest parameters."""
    parts = rel.rstrip("/").split("/")
    best = None
    for t, ops in spec_paths.items():
        if method not in ops:
            continue
        tp = t.rstrip("/").split("/")
        if len(tp) != len(parts) or not all(a == b or a.startswith("{")
                                            for a, b in zip(tp, parts)):
            continue
        n = sum(a.startswith("{") for a in tp)
        if best is None or n < best[0]:
            best = (n, t)
    return best and best[1]


def toggle(path):
    return path[:-1] if path.endswith("/") else path + "/"


def validator(spec):
    """OpenAPI 3.0's schemas are JSON Schema draft 4 with extensions (a
    $ref's siblings ignored); 3.1's are 2020-12."""
    if str(spec.get("openapi", "")).startswith("3.0"):
        return jsonschema.Draft4Validator
    return jsonschema.Draft202012Validator


def check_body(spec, key, template, method, status, raw):
    """Validate raw against the schema Kytos answers with: None if there is
    none, else a note on what was checked."""
    r = spec["paths"][template][method]["responses"].get(status) or {}
    schema = r.get("content", {}).get("application/json", {}).get("schema")
    note = "schema valid"
    if key in KYTOS_SHAPE:
        schema = KYTOS_SHAPE[key][1](schema)
        note = "schema valid, in Kytos' shape"
    if schema is None:
        return None
    doc = json.loads(raw)
    jsonschema.validate(doc, dict(schema, components=spec["components"]), cls=validator(spec))
    return note


def load(path, name):
    with open(path) as f:
        spec = json.load(f)
    for contract, where, fixed, _ in SCHEMA_FIXES:
        if contract != name:
            continue
        node = spec["components"]
        for k in where[:-1]:
            node = node[k]
        node[where[-1]] = dict(copy.deepcopy(node[where[-1]]), **fixed)
    return spec


def main():
    if len(sys.argv) != 10:
        sys.exit(__doc__)
    contracts = {"topology": (load(sys.argv[1], "topology"), T),
                 "of_lldp": (load(sys.argv[2], "of_lldp"), L)}
    base = sys.argv[3]
    up_a, up_b, gone_a, gone_b, down_a, down_b = sys.argv[4:10]
    todo = cases(up_a, up_b, gone_a, gone_b, down_a, down_b,
                 discover(base, up_a, up_b, gone_a, gone_b))
    failures = []

    documented = {(prefix + p, m, s) for spec, prefix in contracts.values()
                  for p, ms in spec["paths"].items() for m, op in ms.items()
                  for s in op.get("responses", {})}
    covered, extra = set(), set()
    for c in todo:
        name, spec, prefix, rel = split_api(c.path, contracts)
        t = rel and template_of(rel, c.method, spec["paths"])
        if t is None:
            failures.append("case %s %s is not in the contracts" % (c.method, c.path))
            continue
        key = (prefix + t, c.method, c.status)
        (covered if key in documented else extra).add(key)
        variants = [c.path]
        if prefix + t not in ONE_FORM:
            variants.append(toggle(c.alt or c.path))
        for variant in variants:
            got, raw = send(base, variant, c.method, c.body, c.ctype, c.query)
            what = "%s %s%s" % (c.method.upper(), variant, "?" + c.query if c.query else "")
            if got != c.status:
                failures.append("%s: %s, Kytos-ng answers %s: %s" % (what, got, c.status,
                                                                     raw[:200]))
                continue
            note = None
            if c.status in ("200", "201"):
                try:
                    note = check_body(spec, key, t, c.method, c.status, raw)
                except (jsonschema.ValidationError, ValueError) as e:
                    failures.append("%s: body does not fit the contract's schema: %s" % (
                        what, str(e).splitlines()[0]))
                    continue
            if c.then:
                try:
                    held = c.then[1](json.loads(raw))
                except (KeyError, TypeError, IndexError, ValueError):
                    held = False
                if not held:
                    failures.append("%s: expected %s: %s" % (what, c.then[0], raw[:300]))
                    continue
                note = (note + "; " if note else "") + c.then[0]
            if key not in documented:
                note = (note + "; " if note else "") + "a status Kytos answers, not in its contract"
            print("ok: %s -> %s%s" % (what, got, " (%s)" % note if note else ""))

    for k in sorted(KYTOS_SHAPE):
        print("note: %s %s %s: %s" % (k[1].upper(), k[0], k[2], KYTOS_SHAPE[k][0]))
    for contract, where, fixed, why in SCHEMA_FIXES:
        print("note: %s %s taken as %s: %s" % (contract, "/".join(where), fixed, why))
    for t in sorted(ONE_FORM):
        print("note: %s sent without toggling its trailing slash: %s" % (t, ONE_FORM[t]))
    uncovered(documented, covered, UNREACHABLE, failures)
    for f in failures:
        print("FAIL:", f)
    print("%d documented (path, method, status), %d checked, %d unreachable, "
          "%d undocumented ones Kytos answers checked, %d failures" % (
              len(documented), len(covered), len(documented & set(UNREACHABLE)), len(extra),
              len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
