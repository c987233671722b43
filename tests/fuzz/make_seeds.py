#!/usr/bin/env python3
"""Write the seed corpus of fuzz_net_tcp (programs in its op format).

Seeds walk the states a switch connection goes through so the fuzzer starts
deep in the state machine: handshake with options, data both ways, out of
order data, FIN from either side, RST, SYN cookies, and one ICMP/ARP frame.
The stack's ISS is forced to 1000 by the harness, so SYN-ACK acks are known.
"""
import os
import struct
import sys

ISS = 1000
PEER_ISN = 5000


def tcp(flags, seq, ack, payload=b"", wnd=65535, opts=b"", sport=40000, dport=6653):
    hlen = 20 + len(opts)
    assert hlen % 4 == 0
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      (hlen // 4) << 4, flags, wnd, 0, 0)
    return hdr + opts + payload


def seg(b):
    return bytes([0]) + struct.pack("!H", len(b)) + b


def tick(ms):
    return bytes([1]) + struct.pack("!H", ms)


def app(act, n):
    return bytes([2]) + struct.pack("!H", n * 5 + act)


FLUSH = bytes([3])
SYN, ACK, FIN, RST, PSH = 0x02, 0x10, 0x01, 0x04, 0x08
SYNOPTS = bytes([2, 4, 0x05, 0xB4, 1, 3, 3, 7, 1, 1, 8, 10]) + struct.pack("!II", 77, 0)
TSOPT = bytes([1, 1, 8, 10]) + struct.pack("!II", 78, 0)


def handshake(opts=SYNOPTS):
    return (seg(tcp(SYN, PEER_ISN, 0, opts=opts)) + FLUSH +
            seg(tcp(ACK, PEER_ISN + 1, ISS + 1, opts=TSOPT if opts else b"")))


seeds = {
    "handshake": handshake(),
    "handshake_plain": handshake(b""),
    "data_both_ways": handshake() + seg(tcp(ACK | PSH, PEER_ISN + 1, ISS + 1, b"x" * 100,
                                           opts=TSOPT)) + FLUSH + app(0, 300) + FLUSH +
                      app(1, 100) + tick(50),
    "ooo_then_fill": handshake(b"") + seg(tcp(ACK, PEER_ISN + 101, ISS + 1, b"b" * 100)) +
                     seg(tcp(ACK, PEER_ISN + 1, ISS + 1, b"a" * 100)) + FLUSH,
    "peer_fin": handshake(b"") + seg(tcp(ACK | FIN, PEER_ISN + 1, ISS + 1, b"q" * 10)) +
                FLUSH + app(3, 0) + FLUSH + seg(tcp(ACK, PEER_ISN + 12, ISS + 2)),
    "our_fin": handshake(b"") + app(2, 0) + FLUSH + seg(tcp(ACK, PEER_ISN + 1, ISS + 2)) +
               seg(tcp(ACK | FIN, PEER_ISN + 1, ISS + 2)) + FLUSH + tick(20000),
    "rst_exact": handshake(b"") + seg(tcp(RST, PEER_ISN + 1, 0)),
    "rst_in_window": handshake(b"") + seg(tcp(RST, PEER_ISN + 50, 0)) + FLUSH,
    "rto": handshake(b"") + app(0, 2000) + FLUSH + tick(1000) + tick(3000) + tick(60000),
    "cookies": (seg(tcp(SYN, 1, 0, sport=1)) + seg(tcp(SYN, 1, 0, sport=2)) +
                seg(tcp(SYN, 1, 0, sport=3, opts=SYNOPTS)) + FLUSH +
                seg(tcp(ACK, 2, 12345, sport=3))),
    "icmp_frame": bytes([4]) + struct.pack("!H", 98) + bytes.fromhex(
        "020000000002" "020000000001" "0800"
        "45000054000040004001" "0000" "0a420001" "0a420002"
        "0800f7ff00000000") + b"\0" * 56,
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
