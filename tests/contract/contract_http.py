"""What both contract checks (kytos_contract.py, kytos_topology_contract.py)
share: one request to ofcd (its status and raw body, errors included), and
the account of the documented (path, method, status) no case covered."""
import json
import urllib.error
import urllib.request


def send(base, path, method, body, ctype, query):
    """(status as a string, body bytes) of METHOD base+path[?query], with
    body as JSON when not None and Content-Type ctype when given."""
    url = base + path + ("?" + query if query else "")
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method.upper())
    if ctype:
        req.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return str(r.status), r.read()
    except urllib.error.HTTPError as e:
        return str(e.code), e.read()


def uncovered(documented, covered, unreachable, failures):
    """Each documented key without a case: said skipped when unreachable
    lists why Kytos never answers so, else a failure."""
    for key in sorted(documented - covered):
        if key in unreachable:
            print("skip: %s %s %s: %s" % (key[1].upper(), key[0], key[2], unreachable[key]))
        else:
            failures.append("no case for documented %s %s %s" % (key[1].upper(), key[0],
                                                                 key[2]))
