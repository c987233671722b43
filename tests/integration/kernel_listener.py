#!/usr/bin/env python3
"""A listening kernel peer for ofcd's active open (tcp.echo_connect).

Each round: accept ofcd's connection, send BYTES pseudo-random bytes, read
the echo back byte-exact, close. After round PAUSE_AFTER the listener closes
for PAUSE seconds, so ofcd's attempts are refused and it must back off and
come back. Prints one line per round; exit 0 when all rounds verified.

usage: kernel_listener.py ADDR PORT ROUNDS BYTES PAUSE_AFTER PAUSE TIMEOUT
"""
import random
import socket
import sys
import time

addr, port, rounds, nbytes, pause_after, pause, timeout = sys.argv[1:8]
port, rounds, nbytes, pause_after = int(port), int(rounds), int(nbytes), int(pause_after)
pause, timeout = float(pause), float(timeout)
deadline = time.monotonic() + timeout


def listener():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(4)
    s.settimeout(max(0.1, deadline - time.monotonic()))
    return s


ls = listener()
print(f"listening on {addr}:{port}", flush=True)
for r in range(1, rounds + 1):
    conn, peer = ls.accept()
    conn.settimeout(max(0.1, deadline - time.monotonic()))
    data = random.Random(r).randbytes(nbytes)
    t0 = time.monotonic()
    conn.sendall(data)
    got = bytearray()
    while len(got) < nbytes:
        chunk = conn.recv(65536)
        if not chunk:
            break
        got += chunk
    if bytes(got) != data:
        print(f"round {r}: echo mismatch ({len(got)} of {nbytes} bytes)", flush=True)
        sys.exit(1)
    conn.shutdown(socket.SHUT_WR)
    rest = conn.recv(1)              # ofcd closes after our FIN: expect EOF
    conn.close()
    if rest:
        print(f"round {r}: data after the echo", flush=True)
        sys.exit(1)
    print(f"round {r} ok: {nbytes} bytes echoed from {peer[0]}:{peer[1]} "
          f"in {time.monotonic() - t0:.3f} s", flush=True)
    if r == pause_after:
        ls.close()
        print(f"listener closed for {pause} s", flush=True)
        time.sleep(pause)
        ls = listener()
        print("listener back", flush=True)
ls.close()
print("all rounds ok", flush=True)
