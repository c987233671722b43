#!/usr/bin/env python3
"""scale_responder.py - a minimal OpenFlow 1.3 controller for exercising ofswitch-emu.

Test helper, not part of ofcd: accepts any number of switch connections (unlike
ovs-testcontroller's 16), answers HELLO, sends FEATURES_REQUEST and SET_CONFIG, and
replies to ECHO_REQUEST.  Optional extras exercise the emulator's flow table and
multipart code: --flows N pushes N FLOW_MODs per switch after the handshake, then a
BARRIER and a FLOW stats request, and counts the reply parts and flows received.
--ignore-echo never answers echo requests (the emulator's echo timeout must fire).
--active PORT:N connects to N emulated switches listening on PORT.. (ofswitch-emu
--listen) instead of listening.

Prints one JSON line of counters at exit (after --duration seconds or SIGINT/SIGTERM).
"""
import argparse
import asyncio
import json
import signal
import struct
import sys

VERSION = 4
HELLO, ERROR, ECHO_REQUEST, ECHO_REPLY = 0, 1, 2, 3
FEATURES_REQUEST, FEATURES_REPLY, SET_CONFIG = 5, 6, 9
PACKET_IN, PORT_STATUS, FLOW_MOD = 10, 12, 14
MULTIPART_REQUEST, MULTIPART_REPLY = 18, 19
BARRIER_REQUEST, BARRIER_REPLY = 20, 21
OFPMP_FLOW = 1

STATS = {
    "connections": 0, "open": 0, "features_replies": 0, "echo_requests": 0,
    "flow_mods_sent": 0, "barrier_replies": 0, "mp_reply_parts": 0,
    "mp_reply_parts_with_more": 0, "mp_flows": 0, "mp_max_part_len": 0,
    "errors": {}, "packet_ins": 0, "port_status": 0, "bytes_in": 0,
}


def msg(mtype, xid, body=b""):
    return struct.pack("!BBHI", VERSION, mtype, 8 + len(body), xid) + body


def hello():
    return msg(HELLO, 1, struct.pack("!HHI", 1, 8, 1 << VERSION))


def oxm(field, value):
    return struct.pack("!HBB", 0x8000, field << 1, len(value)) + value


def match(tlvs):
    body = b"".join(tlvs)
    m = struct.pack("!HH", 1, 4 + len(body)) + body
    return m + b"\0" * ((8 - len(m) % 8) % 8)


def flow_mod(xid, i, n_ports):
    mac = struct.pack("!HI", 0x0e00, i)
    m = match([oxm(0, struct.pack("!I", i % n_ports + 1)), oxm(3, mac)])
    out = struct.pack("!HHIH6x", 0, 16, 1, 0xffff)           # OUTPUT:1
    instr = struct.pack("!HH4x", 4, 8 + len(out)) + out      # APPLY_ACTIONS
    fixed = struct.pack("!QQBBHHHIIIH2x", i, 0, 0, 0, 0, 0, 100, 0xffffffff,
                        0xffffffff, 0xffffffff, 0)
    return msg(FLOW_MOD, xid, fixed + m + instr)


def flow_stats_request(xid):
    body = struct.pack("!HH4x", OFPMP_FLOW, 0)
    body += struct.pack("!B3xII4xQQ", 0xff, 0xffffffff, 0xffffffff, 0, 0) + match([])
    return msg(MULTIPART_REQUEST, xid, body)


async def serve(reader, writer, args):
    STATS["connections"] += 1
    STATS["open"] += 1
    writer.write(hello() + msg(FEATURES_REQUEST, 2))
    try:
        while True:
            hdr = await reader.readexactly(8)
            _, mtype, length, xid = struct.unpack("!BBHI", hdr)
            body = await reader.readexactly(length - 8) if length > 8 else b""
            STATS["bytes_in"] += length
            if mtype == ECHO_REQUEST:
                STATS["echo_requests"] += 1
                if not args.ignore_echo:
                    writer.write(msg(ECHO_REPLY, xid, body))
            elif mtype == FEATURES_REPLY:
                STATS["features_replies"] += 1
                out = [msg(SET_CONFIG, 3, struct.pack("!HH", 0, 128))]
                for i in range(args.flows):
                    out.append(flow_mod(1000 + i, i, args.ports))
                if args.flows:
                    STATS["flow_mods_sent"] += args.flows
                    out.append(msg(BARRIER_REQUEST, 4))
                    out.append(flow_stats_request(5))
                writer.write(b"".join(out))
            elif mtype == MULTIPART_REPLY:
                mp_type, flags = struct.unpack("!HH", body[:4])
                STATS["mp_reply_parts"] += 1
                STATS["mp_max_part_len"] = max(STATS["mp_max_part_len"], length)
                if flags & 1:
                    STATS["mp_reply_parts_with_more"] += 1
                if mp_type == OFPMP_FLOW:
                    off = 8
                    while off + 2 <= len(body):
                        (elen,) = struct.unpack("!H", body[off:off + 2])
                        if elen < 48:
                            break
                        STATS["mp_flows"] += 1
                        off += elen
            elif mtype == BARRIER_REPLY:
                STATS["barrier_replies"] += 1
            elif mtype == ERROR:
                key = "%d/%d" % struct.unpack("!HH", body[:4])
                STATS["errors"][key] = STATS["errors"].get(key, 0) + 1
            elif mtype == PACKET_IN:
                STATS["packet_ins"] += 1
            elif mtype == PORT_STATUS:
                STATS["port_status"] += 1
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        STATS["open"] -= 1
        writer.close()


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=6653)
    ap.add_argument("--addr", default="127.0.0.1")
    ap.add_argument("--duration", type=float, default=0, help="seconds, 0 = until signal")
    ap.add_argument("--flows", type=int, default=0, help="FLOW_MODs per switch")
    ap.add_argument("--ports", type=int, default=4)
    ap.add_argument("--ignore-echo", action="store_true")
    ap.add_argument("--active", help="PORT:N - connect to N listening switches")
    args = ap.parse_args()

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if args.duration:
        loop.call_later(args.duration, stop.set)

    def handler(r, w):
        return serve(r, w, args)

    tasks = []
    server = None
    if args.active:
        base, n = (int(x) for x in args.active.split(":"))
        for i in range(n):
            r, w = await asyncio.open_connection(args.addr, base + i)
            tasks.append(asyncio.create_task(serve(r, w, args)))
    else:
        server = await asyncio.start_server(handler, args.addr, args.port, backlog=4096)
        print("listening on %s:%d" % (args.addr, args.port), file=sys.stderr, flush=True)
    await stop.wait()
    if server:
        server.close()
    for t in tasks:
        t.cancel()
    print(json.dumps(STATS), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
