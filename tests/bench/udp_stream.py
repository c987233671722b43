#!/usr/bin/python3
"""A steady UDP stream with sequence numbers, to count what a failover
loses (eline_failover.py runs it in Mininet's hosts).

  udp_stream.py send IP PORT RATE SECONDS
      RATE packets/s for SECONDS, in bursts every millisecond (RATE/1000
      each), each carrying its sequence number; prints {"sent": n}.
  udp_stream.py recv PORT SECONDS
      counts what arrives until SECONDS after the first packet, however
      long it pauses; prints {"received", "last_seq", "longest_gap"} (the
      most packets missing in a row: an outage's length in packets; a
      stream that never came back counts to its last packet sent only
      through "received").
"""
import json
import socket
import struct
import sys
import time


def send(ip, port, rate, secs):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    per_ms = max(1, rate // 1000)
    pad = b"\0" * 56
    seq = 0
    start = time.monotonic()
    tick = 0
    while True:
        tick += 1
        due = start + tick / 1000.0
        if due - start > secs:
            break
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        for _ in range(per_ms):
            try:
                s.sendto(struct.pack("!Q", seq) + pad, (ip, port))
            except OSError:
                pass                     # counted as lost at the receiver
            seq += 1
    print(json.dumps({"sent": seq}), flush=True)


def recv(port, secs):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", port))
    s.settimeout(secs + 5)
    got, last, gap, end = 0, -1, 0, None
    while end is None or time.monotonic() < end:
        if end is not None:
            s.settimeout(max(0.001, end - time.monotonic()))
        try:
            data = s.recv(128)
        except socket.timeout:
            if end is None:
                break                    # nothing came at all
            continue
        if end is None:
            end = time.monotonic() + secs
        seq = struct.unpack("!Q", data[:8])[0]
        got += 1
        if seq > last:
            gap = max(gap, seq - last - 1)
            last = seq
    print(json.dumps({"received": got, "last_seq": last, "longest_gap": gap}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        recv(int(sys.argv[2]), float(sys.argv[3]))
