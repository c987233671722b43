#!/usr/bin/env python3
"""Hostile OpenFlow peers for the isolation tests: kernel sockets, no ofcd code.

usage: hostile_peer.py MODE --addr IP --port PORT [--conns N] [--duration S]
                       [--dpid HEX] [--rcvbuf BYTES] [--bind IP[,IP...]]

MODE
  echo-flood   N connections with a tiny receive buffer that never read and
               send ECHO_REQUESTs as fast as the socket takes them, no HELLO
  silent       N connections that send nothing and never close
  hello-flood  HELLO, then messages that must wait for a handshake that the
               peer never completes (it ignores FEATURES_REQUEST)
  pin-squat    HELLO, then --count PACKET_INs of --msg-len bytes each (600:
               each needs a large buffer) without ever answering FEATURES
  port-flood   a full handshake as dpid, then PORT_STATUS for ever-new ports
               and multipart replies that never finish (REPLY_MORE forever)
  dpid-thief   a full handshake claiming dpid (a live switch's), answering
               echo, for duration seconds
  partial-flood  N switches (dpid, dpid+1, ...) that handshake, then send the
               first 65,000 bytes of a 65,535-byte message and never the rest:
               each pins a whole TCP receive window in ofcd
  stats-forge  a full handshake as dpid, then flow-statistics reply parts
               nobody asked for, with the top (control-thread) xid bit set,
               as fast as the socket takes them: one reply that never ends
               (REPLY_MORE) and, every 64th part, a complete one with a fresh
               xid, full of old flows ofcd never stored (priority 1111 and
               up, 3600 s old). The flow manager's own FLOW request is
               answered only after a burst of such complete replies, then
               truthfully (and every other FLOW request at once): the switch
               holds exactly FORGE_STORED, the flow the test stored for it.

Prints one line at the end: "MODE: conns=N sent_msgs=M sent_bytes=B
refused=R closed_by_peer=C forged_parts=F flow_mods_received=K" and exits 0;
the tests read ofcd, and the last two of these.
"""
import argparse
import errno
import os
import random
import selectors
import socket
import struct
import sys
import time

OFP13 = 4
HELLO, ERROR, ECHO_REQUEST, ECHO_REPLY = 0, 1, 2, 3
FEATURES_REQUEST, FEATURES_REPLY, PACKET_IN = 5, 6, 10
FLOW_MOD = 14
PORT_STATUS, MULTIPART_REQUEST, MULTIPART_REPLY, BARRIER_REQUEST = 12, 18, 19, 20
MP_DESC, MP_FLOW, MP_PORT_DESC = 0, 1, 13
XID_CONTROL = 0x80000000
REPLY_MORE = 1
# stats-forge: the one flow the switch truthfully holds (what the test
# stores for it: table 0, no instructions), as (priority, in_port).
FORGE_STORED = (4242, 7)


def msg(mtype, xid, body=b""):
    return struct.pack("!BBHI", OFP13, mtype, 8 + len(body), xid) + body


def hello():
    # One version-bitmap element: 1.3 only.
    return msg(HELLO, 1, struct.pack("!HHI", 1, 8, 1 << OFP13))


def port(no):
    name = ("p%d" % no).encode()[:15].ljust(16, b"\0")
    mac = struct.pack("!HI", 0x02ee, no)
    return struct.pack("!I4x6s2x16sIIIIIIII", no, mac, name, 0, 4, 0x40, 0, 0, 0,
                       10000000, 10000000)


def packet_in(xid, length):
    """A table-miss PACKET_IN of length bytes: an empty match, the rest data."""
    fixed = struct.pack("!IHBBQ", 0xffffffff, length - 34, 0, 0, 0)
    match = struct.pack("!HH4x", 1, 4)
    return msg(PACKET_IN, xid, fixed + match + b"\0\0" + b"\x5a" * (length - 34))


def mp_reply(xid, mptype, flags, body=b""):
    return msg(MULTIPART_REPLY, xid, struct.pack("!HH4x", mptype, flags) + body)


def flow_entry(priority, in_port, age_s):
    """One ofp_flow_stats of table 0: match in_port (one OXM), no instructions."""
    oxm = struct.pack("!II", 0x80000004, in_port)      # OFPXMC_OPENFLOW_BASIC, IN_PORT, 4 bytes
    match = struct.pack("!HH", 1, 4 + len(oxm)) + oxm  # OFPMT_OXM
    match += b"\0" * (-len(match) % 8)
    return struct.pack("!HBxIIHHHH4xQQQ", 48 + len(match), 0, age_s, 0, priority, 0, 0, 0,
                       0, 0, 0) + match


# 16 old flows ofcd never stored: a consistency verdict would delete them.
FORGED_BODY = b"".join(flow_entry(1111 + i, 9 + i, 3600) for i in range(16))


def forged_part(xid, more):
    """A FLOW reply part with xid's low 31 bits and the control bit."""
    return mp_reply(XID_CONTROL | (xid & 0x7fffffff), MP_FLOW, REPLY_MORE if more else 0,
                    FORGED_BODY)


def truthful_flows(xid):
    return mp_reply(xid, MP_FLOW, 0, flow_entry(FORGE_STORED[0], FORGE_STORED[1], 0))


class Peer:
    """One connection and its receive buffer (switch modes parse what comes)."""

    def __init__(self, addr, port, rcvbuf, bind=None):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if bind:
            self.s.bind((bind, 0))
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.connect((addr, port))
        self.s.setblocking(False)
        self.inbuf = b""
        self.partial_sent = False
        self.out = b""
        self.closed = False

    def send(self, data, stats):
        self.out += data
        self.flush(stats)

    def flush(self, stats):
        while self.out and not self.closed:
            try:
                n = self.s.send(self.out)
            except BlockingIOError:
                return
            except OSError:
                self.closed = True
                stats["closed_by_peer"] += 1
                return
            stats["sent_bytes"] += n
            self.out = self.out[n:]

    def messages(self, stats):
        try:
            data = self.s.recv(65536)
        except BlockingIOError:
            return []
        except OSError:
            data = b""
        if not data:
            if not self.closed:
                self.closed = True
                stats["closed_by_peer"] += 1
            return []
        self.inbuf += data
        out = []
        while len(self.inbuf) >= 8:
            length = struct.unpack("!H", self.inbuf[2:4])[0]
            if length < 8 or len(self.inbuf) < length:
                break
            out.append(self.inbuf[:length])
            self.inbuf = self.inbuf[length:]
        return out


def answer_switch(p, m, dpid, stats):
    """What a switch answers during and after the handshake."""
    mtype, xid = m[1], struct.unpack("!I", m[4:8])[0]
    if mtype == ECHO_REQUEST:
        p.send(msg(ECHO_REPLY, xid, m[8:]), stats)
    elif mtype == FEATURES_REQUEST:
        p.send(msg(FEATURES_REPLY, xid, struct.pack("!QIBB2xII", dpid, 0, 254, 0, 0x4f, 0)),
               stats)
    elif mtype == MULTIPART_REQUEST:
        mptype = struct.unpack("!H", m[8:10])[0]
        if mptype == MP_DESC:
            body = b"hostile".ljust(256, b"\0") * 3 + b"0".ljust(32, b"\0") + \
                b"peer".ljust(256, b"\0")
            p.send(mp_reply(xid, MP_DESC, 0, body), stats)
        elif mptype == MP_PORT_DESC:
            p.send(mp_reply(xid, MP_PORT_DESC, 0, port(1)), stats)
        elif mptype == MP_FLOW:
            p.send(mp_reply(xid, MP_FLOW, 0), stats)
    elif mtype == BARRIER_REQUEST:
        p.send(msg(21, xid), stats)


def run(args):
    stats = {"sent_msgs": 0, "sent_bytes": 0, "refused": 0, "closed_by_peer": 0}
    peers = []
    binds = args.bind.split(",") if args.bind else [None]
    for i in range(args.conns):
        try:
            peers.append(Peer(args.addr, args.port, args.rcvbuf, binds[i % len(binds)]))
        except OSError:
            stats["refused"] += 1
    sel = selectors.DefaultSelector()
    end = time.monotonic() + args.duration
    dpid = int(args.dpid, 16)
    next_port = 100
    mp_xid = 0x7000
    established = set()
    for i, p in enumerate(peers):
        p.dpid = dpid + i if args.mode == "partial-flood" else dpid
        p.answered = set()
        p.pins = 0
        if args.mode in ("hello-flood", "pin-squat", "port-flood", "dpid-thief",
                         "partial-flood", "stats-forge"):
            p.send(hello(), stats)
            sel.register(p.s, selectors.EVENT_READ, p)
    # The first 65,000 bytes of a 65,535-byte message: ofcd can frame
    # nothing until the rest comes, which never does.
    partial = struct.pack("!BBHI", 4, PORT_STATUS, 65535, 0x45) + b"\0" * (65000 - 8)
    # --rate: half messages per second at most, so the attack fills ofcd's
    # buffers rather than the link (a burst of 1,200 x 64 KiB overflows the
    # tap's queue, which drops every sender's packets alike).
    partials = [0]
    t_start = time.monotonic()

    def partials_allowed():
        return not args.rate or partials[0] < (time.monotonic() - t_start) * args.rate
    echo = msg(ECHO_REQUEST, 0x42, b"x" * 8)
    held = msg(BARRIER_REQUEST, 0x43)
    pin = packet_in(0x44, args.msg_len)
    stats["forged_parts"] = stats["flow_mods_received"] = 0
    endless_xid = 0x00abcdef           # the reply that never ends (with the control bit)

    def forge_answer(p, m, stats):
        """stats-forge: FLOW requests and FLOW_MODs; True when m is handled."""
        mtype, xid = m[1], struct.unpack("!I", m[4:8])[0]
        if mtype == FLOW_MOD:
            stats["flow_mods_received"] += 1
            return False                # (nothing to answer)
        if mtype != MULTIPART_REQUEST or struct.unpack("!H", m[8:10])[0] != MP_FLOW:
            return False
        if xid & XID_CONTROL:
            # Before the truth, complete replies it did not ask for: its
            # own next xids (a FLOW_MOD's, a barrier's) and made-up ones.
            burst = b""
            for x in (xid + 1, xid + 2, 0x00777777, 0x7fffffff):
                burst += forged_part(x, True) + forged_part(x, False)
                stats["forged_parts"] += 2
            p.send(burst, stats)
        p.send(truthful_flows(xid), stats)
        return True
    while time.monotonic() < end:
        if args.mode == "silent":
            time.sleep(0.2)
            continue
        if args.mode == "echo-flood":
            progress = False
            for p in peers:
                if p.closed:
                    continue
                before = stats["sent_bytes"]
                if not p.out:
                    p.out = echo * 64
                    stats["sent_msgs"] += 64
                p.flush(stats)
                progress |= stats["sent_bytes"] != before
            if not progress:
                time.sleep(0.005)
            continue
        for key, _ in sel.select(timeout=0.01):
            p = key.data
            for m in p.messages(stats):
                if args.mode in ("hello-flood", "pin-squat"):
                    continue            # never answers: the handshake never ends
                if args.mode == "stats-forge" and forge_answer(p, m, stats):
                    continue
                answer_switch(p, m, p.dpid, stats)
                if m[1] == MULTIPART_REQUEST:
                    p.answered.add(struct.unpack("!H", m[8:10])[0])
                    if MP_PORT_DESC in p.answered and (args.mode != "partial-flood" or
                                                       MP_DESC in p.answered):
                        established.add(p)
            if p.closed:
                sel.unregister(p.s)
        for p in peers:
            if p.closed:
                continue
            if args.mode == "hello-flood" and len(p.out) < 4096:
                p.send(held * 64, stats)
                stats["sent_msgs"] += 64
            elif args.mode == "pin-squat" and p.pins < args.count and len(p.out) < 65536:
                k = min(32, args.count - p.pins)
                p.send(pin * k, stats)
                p.pins += k
                stats["sent_msgs"] += k
            elif args.mode == "partial-flood" and p in established and not p.partial_sent \
                    and partials_allowed():
                p.partial_sent = True
                partials[0] += 1
                p.send(partial, stats)
                stats["sent_msgs"] += 1
            elif args.mode == "stats-forge" and p in established and len(p.out) < 65536:
                batch = b""
                for _ in range(32):
                    n = stats["forged_parts"]
                    stats["forged_parts"] += 1
                    if n % 64 == 63:        # complete, fresh xid
                        batch += forged_part(random.getrandbits(31), False)
                    else:
                        batch += forged_part(endless_xid, True)
                p.send(batch, stats)
                stats["sent_msgs"] += 32
            elif args.mode == "port-flood" and p in established and len(p.out) < 65536:
                batch = b""
                for _ in range(32):
                    batch += msg(PORT_STATUS, 0, struct.pack("!B7x", 0) + port(next_port))
                    next_port += 1
                    mp_xid += 1
                    batch += mp_reply(mp_xid, MP_FLOW, 1)       # REPLY_MORE, never ends
                p.send(batch, stats)
                stats["sent_msgs"] += 64
            else:
                p.flush(stats)
    print("%s: conns=%d sent_msgs=%d sent_bytes=%d refused=%d closed_by_peer=%d "
          "forged_parts=%d flow_mods_received=%d" % (
              args.mode, len(peers), stats["sent_msgs"], stats["sent_bytes"], stats["refused"],
              stats["closed_by_peer"], stats["forged_parts"], stats["flow_mods_received"]),
          flush=True)
    for p in peers:
        p.s.close()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["echo-flood", "silent", "hello-flood", "pin-squat",
                                     "port-flood", "dpid-thief", "partial-flood",
                                     "stats-forge"])
    ap.add_argument("--addr", default="10.66.0.2")
    ap.add_argument("--port", type=int, default=6653)
    ap.add_argument("--conns", type=int, default=1)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--dpid", default="dead")
    ap.add_argument("--rate", type=float, default=0,
                    help="partial-flood: half messages per second at most (0: no bound)")
    ap.add_argument("--bind", default=None,
                    help="source address(es), comma-separated: connections take turns")
    ap.add_argument("--rcvbuf", type=int, default=0)
    ap.add_argument("--count", type=int, default=1100, help="pin-squat: PACKET_INs each")
    ap.add_argument("--msg-len", type=int, default=600, help="pin-squat: bytes each")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
