#!/usr/bin/env python3
"""A fake etcd: the few calls of etcd's JSON gateway a node's store makes
(range, put, txn without compares, watch), over a history kept in memory, with the shapes of a
catch-up that a test needs to choose: etcd sends a lagging watcher its
missed changes in parts, each headed with its *current* revision; this one
sends them in parts of --part-revs revisions (or all in one message), with
a pause between parts, and can end the stream after some parts.

usage: etcd_fake.py --port P

Control, for the test (JSON bodies, JSON answers):
  POST /fake/seed   {"prefix": P, "dpid": D, "from": I, "count": N,
                     "delete": [[dpid, match_id], ...], "pad": B}
                    puts N flow records (match ids I..I+N-1; their JSON B
                    bytes longer), one revision each, then deletes the
                    given ones; -> {"revision": R}
  POST /fake/watch  {"part_revs": K, "pause_ms": M, "close_after": C,
                     "one_message": B}
                    how the next watches send their catch-up (close_after:
                    the next watch only)
  POST /fake/txn    {"hang_after": N, "hang_s": S}
                    the next N transactions are applied and answered; the one
                    after them is applied but answered only after S seconds
                    (a leader election seen from the client: it times out
                    while its change is in)
  GET  /fake/state?prefix=P  -> {"revision": R, "flows": [[dpid, mid], ...]}

Nothing here is etcd's code: the wire shapes follow etcd's published API
(int64 as strings, keys and values in base64, {"result": ...} per streamed
message).
"""
import argparse
import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

LOCK = threading.Condition()
HISTORY = []          # (revision, "PUT"|"DELETE", key bytes, value bytes)
CUR = {}              # key -> (value, create_rev, mod_rev, version)
REV = [1]
WATCH_CFG = {"part_revs": 1000, "pause_ms": 0, "close_after": 0, "one_message": False}
TXN_CFG = {"hang_after": -1, "hang_s": 0}


def b64(b):
    return base64.b64encode(b).decode()


def unb64(s):
    return base64.b64decode(s) if s else b""


def header():
    return {"cluster_id": "1", "member_id": "2", "revision": str(REV[0]), "raft_term": "3"}


def kv_json(key, val, create, mod, version):
    return {"key": b64(key), "value": b64(val), "create_revision": str(create),
            "mod_revision": str(mod), "version": str(version)}


def put_locked(key, val, bump=True):
    if bump:
        REV[0] += 1
    old = CUR.get(key)
    CUR[key] = (val, old[1] if old else REV[0], REV[0], (old[3] + 1) if old else 1)
    HISTORY.append((REV[0], "PUT", key, val))
    LOCK.notify_all()


def delete_locked(key, bump=True):
    if key not in CUR:
        return
    if bump:
        REV[0] += 1
    del CUR[key]
    HISTORY.append((REV[0], "DELETE", key, b""))
    LOCK.notify_all()


def state_at(rev):
    """key -> (value, create, mod, version) as of rev."""
    st = {}
    for r, typ, key, val in HISTORY:
        if r > rev:
            break
        if typ == "PUT":
            old = st.get(key)
            st[key] = (val, old[1] if old else r, r, (old[3] + 1) if old else 1)
        else:
            st.pop(key, None)
    return st


def flow_record(flow_id, pad=0):
    owner = b"test"
    body = b'{"priority": 1%s}' % (b', "cookie_note": "' + b"x" * pad + b'"' if pad else b"")
    head = "ofcd-flow 1 %016x 0 0 0 1 1 %d\n" % (flow_id, len(owner))
    return head.encode() + owner + body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"{}")

    def answer(self, obj, code=200):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        u = urlparse(self.path)
        if u.path == "/fake/state":
            prefix = parse_qs(u.query).get("prefix", [""])[0].encode() + b"data/flows/"
            with LOCK:
                flows = sorted([int(k[len(prefix):len(prefix) + 16], 16),
                                int(k[len(prefix) + 17:], 16)]
                               for k in CUR if k.startswith(prefix))
                self.answer({"revision": REV[0], "flows": flows})
            return
        self.answer({"error": "no such path"}, 404)

    def do_POST(self):
        path = urlparse(self.path).path
        req = self.body()
        if path == "/v3/kv/range":
            self.range(req)
        elif path == "/v3/kv/put":
            with LOCK:
                put_locked(unb64(req.get("key")), unb64(req.get("value")))
                self.answer({"header": header()})
        elif path == "/v3/watch":
            self.watch(req.get("create_request", {}))
        elif path == "/fake/seed":
            self.seed(req)
        elif path == "/v3/kv/txn":
            self.txn(req)
        elif path == "/fake/watch":
            with LOCK:
                WATCH_CFG.update(req)
            self.answer({"ok": True})
        elif path == "/fake/txn":
            with LOCK:
                TXN_CFG.update(req)
            self.answer({"ok": True})
        else:
            self.answer({"error": "not faked: " + path, "code": 12}, 501)

    def seed(self, req):
        prefix = req["prefix"].encode() + b"data/flows/"
        with LOCK:
            for i in range(req.get("from", 0), req.get("from", 0) + req.get("count", 0)):
                key = prefix + b"%016x/%016x" % (req["dpid"], i)
                put_locked(key, flow_record(i + 1, req.get("pad", 0)))
            for d, m in req.get("delete", []):
                delete_locked(prefix + b"%016x/%016x" % (d, m))
            self.answer({"revision": REV[0]})

    def txn(self, req):
        """Every success operation at one revision; compares are not faked."""
        if req.get("compare"):
            self.answer({"error": "compares are not faked", "code": 12}, 501)
            return
        with LOCK:
            REV[0] += 1
            resp = []
            for op in req.get("success", []):
                if "request_put" in op:
                    p = op["request_put"]
                    put_locked(unb64(p.get("key")), unb64(p.get("value")), bump=False)
                    resp.append({"response_put": {"header": header()}})
                else:
                    d = op["request_delete_range"]
                    k = unb64(d.get("key"))
                    n = 1 if k in CUR else 0
                    delete_locked(k, bump=False)
                    resp.append({"response_delete_range": {"header": header(),
                                                           "deleted": str(n)}})
            out = {"header": header(), "succeeded": True, "responses": resp}
            hang = TXN_CFG["hang_after"] == 0
            if TXN_CFG["hang_after"] >= 0:
                TXN_CFG["hang_after"] -= 1
            hang_s = TXN_CFG["hang_s"]
        if hang:
            time.sleep(hang_s)
        self.answer(out)

    def range(self, req):
        key, end = unb64(req.get("key")), unb64(req.get("range_end"))
        limit = int(req.get("limit") or 0)
        with LOCK:
            rev = int(req.get("revision") or 0) or REV[0]
            st = state_at(rev) if rev != REV[0] else CUR
            if end:
                keys = sorted(k for k in st if key <= k and (end == b"\0" or k < end))
            else:
                keys = [key] if key in st else []
            count = len(keys)
            more = bool(limit) and count > limit
            keys = keys[:limit] if limit else keys
            kvs = [] if req.get("count_only") else [
                kv_json(k, b"" if req.get("keys_only") else st[k][0], st[k][1], st[k][2],
                        st[k][3]) for k in keys]
            out = {"header": header(), "count": str(count), "more": more}
            if kvs:
                out["kvs"] = kvs
            self.answer(out)

    def send_line(self, obj):
        data = json.dumps({"result": obj}).encode() + b"\n"
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def watch(self, cr):
        key, end = unb64(cr.get("key")), unb64(cr.get("range_end"))
        start = int(cr.get("start_revision") or 0)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with LOCK:
            cfg = dict(WATCH_CFG)
            WATCH_CFG["close_after"] = 0
            start = start or REV[0] + 1
            self.send_line({"header": header(), "watch_id": "0", "created": True})
        sent_to = start - 1
        parts = 0

        def mine(k):
            return key <= k and (not end or end == b"\0" or k < end)

        try:
            while True:
                with LOCK:
                    while sent_to >= REV[0]:
                        LOCK.wait(0.2)
                    todo = [h for h in HISTORY if h[0] > sent_to]
                    if not cfg["one_message"]:
                        todo = [h for h in todo if h[0] <= todo[0][0] + cfg["part_revs"] - 1]
                    last = todo[-1][0]
                    ev = [{"type": typ, "kv": kv_json(k, v, 0, r, 1)}
                          for r, typ, k, v in todo if mine(k)]
                    hdr = header()
                for i in range(len(ev)):
                    if ev[i]["type"] == "PUT":
                        del ev[i]["type"]     # etcd leaves the default (PUT) out
                if ev:
                    self.send_line({"header": hdr, "events": ev})
                    parts += 1
                sent_to = last
                if cfg["close_after"] and parts >= cfg["close_after"]:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if cfg["pause_ms"]:
                    time.sleep(cfg["pause_ms"] / 1000.0)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.serve_forever()


if __name__ == "__main__":
    main()
