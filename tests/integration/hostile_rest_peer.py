#!/usr/bin/env python3
"""Hostile REST clients for hostile_rest.sh: kernel sockets, no ofcd code.

usage: hostile_rest_peer.py uploads --port P --bind IP [--conns N] [--limit N]
                            [--slow N] [--size BYTES] [--duration S]
       hostile_rest_peer.py spray --port P --victim IP --count N [--workers N]
                            [--lock-s S] [--user NAME]
       hostile_rest_peer.py hammer --port P --bind IP [--workers N] [--duration S]
                            [--user NAME]
       hostile_rest_peer.py operator --port P --bind IP --password PW [--tries N]
                            [--gap S] [--dpid D] [--user NAME]
       hostile_rest_peer.py burst --port P --bind IP --token T --rate N
                            [--duration S] [--dpid D]

uploads  rounds of N connections from one address: all opened first and
         held, so the server sees N at once (the N - LIMIT over its
         per-address limit are closed before anyone talks); then each sends
         the headers of a POST of SIZE bytes without a token, half with
         "Expect: 100-continue", --slow of them one byte every 5 ms. Each
         then waits up to 3 s for an answer before it sends a byte of body;
         once answered it sends the body anyway, as fast as it can, until
         the server's close stops it. Kinds: early401 (401 before any body
         byte), refused (closed with no answer: over the per-address limit),
         continue (100 Continue: the server asked for the body), late
         (nothing in 3 s: it waits for the body), other.
spray    the victim address fails 5 logins (locked), then COUNT addresses
         127.0.1.1, 127.0.1.2, ... (250 per /24) each try one wrong
         password (a 503 is retried after 0.1-0.3 s), while the victim polls
         every 0.5 s: it must get 429 until LOCK_S after its 5th failure and
         be let in (401) soon after.

hammer   WORKERS connections at once from one address, each sending
         wrong-password logins in a loop (a new connection each) for
         DURATION s; counts the answers by status.
operator a legitimate client: TRIES rounds, GAP s apart, each a login
         (Basic, with PW) and a one-flow POST with the token it got, each
         timed from connect to the last byte of the answer; a refusal is
         not retried (it is what the operator would see). The first login
         is the address's first. Prints the statuses and each p50/p99/max.
burst    a script with a token: one-flow POSTs at RATE a second (each on a
         connection of its own, as Kytos' stress script sends them) for
         DURATION s; counts the answers by status.

Prints one JSON object at the end; the test reads it and ofcd.
"""
import argparse
import base64
import json
import random
import selectors
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


def connect(port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.connect((HOST, port))
    return s


def read_answer(s, timeout):
    """The server's first bytes within timeout: b"" at its close, None if silent."""
    s.settimeout(timeout)
    try:
        return s.recv(4096)
    except socket.timeout:
        return None
    except OSError:
        return b""


def upload_one(s, i, size, slow, out):
    head = ("POST /api/kytos/flow_manager/v2/flows HTTP/1.1\r\nHost: ofcd\r\n"
            "Content-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" %
            (size, "Expect: 100-continue\r\n" if i % 2 else "")).encode()
    try:
        if slow:
            for b in head:
                s.send(bytes([b]))
                time.sleep(0.005)
        else:
            s.sendall(head)
    except OSError:
        out[i] = ("refused", 0.0)
        return
    t1 = time.monotonic()
    got = read_answer(s, 3.0)
    ms = (time.monotonic() - t1) * 1000
    if got is None:
        kind = "late"
    elif got == b"":
        kind = "refused"
    elif got.startswith(b"HTTP/1.1 401"):
        kind = "early401"
    elif got.startswith(b"HTTP/1.1 100"):
        kind = "continue"
    else:
        kind = "other"
    out[i] = (kind, ms)
    # The body regardless, as a hog would send it: only the close stops it.
    chunk = b" " * 65536
    sent = 0
    s.settimeout(2.0)
    try:
        while sent < size:
            sent += s.send(chunk)
    except OSError:
        pass


def wait_refused(socks, want, secs=3.0):
    """Until want of socks have been closed by the server (or secs pass)."""
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    closed = 0
    end = time.monotonic() + secs
    while closed < want and time.monotonic() < end:
        for key, _ in sel.select(timeout=end - time.monotonic()):
            sel.unregister(key.fileobj)
            closed += 1
    sel.close()


def uploads(a):
    totals = {"early401": 0, "refused": 0, "continue": 0, "late": 0, "other": 0}
    worst_ms = 0.0
    rounds = 0
    end = time.monotonic() + a.duration
    while time.monotonic() < end:
        socks = []
        for _ in range(a.conns):
            try:
                socks.append(connect(a.port, a.bind))
            except OSError:
                socks.append(None)
        # Before anyone talks, the server has refused the connections over
        # its per-address limit: that many of them are closed (readable).
        wait_refused([x for x in socks if x is not None], a.conns - a.limit)
        out = [("refused", 0.0)] * a.conns
        threads = []
        for i, s in enumerate(socks):
            if s is None:
                continue
            t = threading.Thread(target=upload_one,
                                 args=(s, i, a.size, i < a.slow, out))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        for s in socks:
            if s is not None:
                s.close()
        for kind, ms in out:
            totals[kind] += 1
            if kind == "early401":
                worst_ms = max(worst_ms, ms)
        rounds += 1
    print(json.dumps({"mode": "uploads", "rounds": rounds, "conns": a.conns,
                      "kinds": totals, "worst_401_ms": round(worst_ms, 1)}))


def login_request(user, password):
    """The bytes of one login (Basic credentials) on its own connection."""
    cred = base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    return ("GET /api/kytos/core/auth/login/ HTTP/1.1\r\nHost: ofcd\r\n"
            "Authorization: Basic %s\r\nConnection: close\r\n\r\n" % cred).encode()


def exchange(port, src, raw, timeout=10.0):
    """(status, header lines, body, seconds) of one request on its own
    connection, read until the server closes it; status 0 when it failed."""
    t0 = time.monotonic()
    try:
        s = connect(port, src)
        s.sendall(raw)
        s.settimeout(timeout)
        data = b""
        while True:
            piece = s.recv(65536)
            if not piece:
                break
            data += piece
        s.close()
    except OSError:
        return 0, [], b"", time.monotonic() - t0
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    first = lines[0].split()
    status = int(first[1]) if len(first) > 1 and first[1].isdigit() else 0
    return status, lines[1:], body, time.monotonic() - t0


def login(port, src, user, password):
    """(status, retry_after or 0) of one login from src."""
    status, headers, _, _ = exchange(port, src, login_request(user, password))
    retry = 0
    for h in headers:
        if h.lower().startswith("retry-after:"):
            retry = int(h.split(":", 1)[1])
    return status, retry


def login_settled(port, src, user, password):
    """A login retried while the server is busy (503): its final status."""
    while True:
        st, _ = login(port, src, user, password)
        if st != 503:
            return st
        time.sleep(random.uniform(0.1, 0.3))


def spray(a):
    res = {"mode": "spray", "victim": {}, "spray": {}}
    # The victim locks itself out.
    for _ in range(5):
        st = login_settled(a.port, a.victim, a.user, "wrong-password")
        if st != 401:
            res["victim"]["setup_status"] = st
            print(json.dumps(res))
            return
    t_lock = time.time()
    st, retry = login(a.port, a.victim, a.user, "wrong-password")
    res["victim"]["locked_status"] = st
    res["victim"]["retry_after"] = retry

    counts = {}
    lock = threading.Lock()
    addrs = ["127.0.%d.%d" % (1 + k // 250, 1 + k % 250) for k in range(a.count)]

    def worker(mine):
        for ad in mine:
            st = login_settled(a.port, ad, a.user, "wrong-password-%s" % ad)
            with lock:
                counts[str(st)] = counts.get(str(st), 0) + 1

    threads = [threading.Thread(target=worker, args=(addrs[w::a.workers],))
               for w in range(a.workers)]
    for t in threads:
        t.start()

    # The victim, while the spray runs and after: locked until its time.
    early = None
    freed_at = None
    deadline = t_lock + a.lock_s + 6
    while time.time() < deadline:
        now = time.time()
        st, _ = login(a.port, a.victim, a.user, "wrong-password")
        if st == 401:
            if now < t_lock + a.lock_s - 1.5:
                early = round(now - t_lock, 2)
            freed_at = round(now - t_lock, 2)
            break
        if st not in (429, 503):
            res["victim"]["odd_status"] = st
            break
        time.sleep(0.5)
    for t in threads:
        t.join()
    res["victim"].update({"freed_early_at_s": early, "freed_at_s": freed_at})
    res["spray"] = counts
    print(json.dumps(res))


def request(port, src, raw, timeout=10.0):
    """(status, body, seconds) of one request on its own connection."""
    status, _, body, secs = exchange(port, src, raw, timeout)
    return status, body, secs


def post_flow(a, token, priority, in_port, force=False):
    """One one-flow POST to a.dpid with token, on its own connection."""
    body = {"flows": [{"priority": priority, "match": {"in_port": in_port},
                       "actions": [{"action_type": "output", "port": 2}]}]}
    if force:
        body["force"] = True
    flow = json.dumps(body).encode()
    head = ("POST /api/kytos/flow_manager/v2/flows/%s HTTP/1.1\r\n"
            "Host: ofcd\r\nAuthorization: Bearer %s\r\n"
            "Content-Type: application/json\r\nContent-Length: %d\r\n"
            "Connection: close\r\n\r\n" % (a.dpid, token, len(flow))).encode()
    return request(a.port, a.bind, head + flow)


def hammer(a):
    counts = {}
    lock = threading.Lock()
    end = time.monotonic() + a.duration
    req = login_request(a.user, "wrong-password")

    def worker():
        while time.monotonic() < end:
            st, _, _ = request(a.port, a.bind, req)
            with lock:
                counts[str(st)] = counts.get(str(st), 0) + 1

    threads = [threading.Thread(target=worker) for _ in range(a.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"mode": "hammer", "bind": a.bind, "workers": a.workers,
                      "status": counts}))


def pct(xs, q):
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))] * 1000, 1) if xs else None


def operator(a):
    login_req = login_request(a.user, a.password)
    res = {"mode": "operator", "bind": a.bind, "login": [], "post": [],
           "login_status": {}, "post_status": {}}
    for i in range(a.tries):
        t_next = time.monotonic() + a.gap
        st, body, secs = request(a.port, a.bind, login_req)
        res["login"].append(secs)
        res["login_status"][str(st)] = res["login_status"].get(str(st), 0) + 1
        token = None
        if st == 200:
            try:
                token = json.loads(body)["token"]
            except ValueError:
                pass
        if token:
            st, _, secs = post_flow(a, token, 900, 1 + i, force=True)
            res["post"].append(secs)
            res["post_status"][str(st)] = res["post_status"].get(str(st), 0) + 1
        time.sleep(max(0.0, t_next - time.monotonic()))
    for k in ("login", "post"):
        xs = res.pop(k)
        res[k] = {"n": len(xs), "p50_ms": pct(xs, 0.5), "p99_ms": pct(xs, 0.99),
                  "max_ms": round(max(xs) * 1000, 1) if xs else None,
                  "all_ms": [round(x * 1000, 1) for x in xs]}
    print(json.dumps(res))


def burst(a):
    counts = {}
    lock = threading.Lock()

    def post(i):
        st, _, _ = post_flow(a, a.token, 901, 1 + i % 60000)
        with lock:
            counts[str(st)] = counts.get(str(st), 0) + 1

    n = int(a.rate * a.duration)
    t0 = time.monotonic()
    threads = []
    for i in range(n):
        time.sleep(max(0.0, t0 + i / a.rate - time.monotonic()))
        t = threading.Thread(target=post, args=(i,))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    print(json.dumps({"mode": "burst", "bind": a.bind, "sent": n,
                      "seconds": round(time.monotonic() - t0, 2), "status": counts}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["uploads", "spray", "hammer", "operator", "burst"])
    p.add_argument("--port", type=int, default=8181)
    p.add_argument("--bind", default="127.0.0.5")
    p.add_argument("--conns", type=int, default=200)
    p.add_argument("--limit", type=int, default=128)
    p.add_argument("--slow", type=int, default=20)
    p.add_argument("--size", type=int, default=16 << 20)
    p.add_argument("--duration", type=float, default=10)
    p.add_argument("--victim", default="127.0.0.9")
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--workers", type=int, default=32)
    p.add_argument("--lock-s", type=float, default=60)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="")
    p.add_argument("--tries", type=int, default=20)
    p.add_argument("--gap", type=float, default=0.5)
    p.add_argument("--dpid", default="00:00:00:00:00:00:10:01")
    p.add_argument("--token", default="")
    p.add_argument("--rate", type=float, default=250)
    a = p.parse_args()
    {"uploads": uploads, "spray": spray, "hammer": hammer, "operator": operator,
     "burst": burst}[a.mode](a)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
