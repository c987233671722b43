"""What both contract checks (kytos_contract.py, kytos_topology_contract.py)
send ofcd: one request, its status and raw body, errors included."""
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
