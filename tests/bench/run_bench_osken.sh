#!/usr/bin/env bash
# The os-ken peer (python3-os-ken, the OpenStack fork of Ryu) on the loads
# run_bench_of.sh gave ofcd: handshake time for 100 and 1000 switches
# connecting at once, and the echo RTT of 100 idle switches alone and next
# to 100 switches flooding packet_ins it answers with FLOW_MODs
# (osken/osken_responder.py). Prints ratios against ofcd's figures from the
# same OUT_DIR (run_bench_of.sh must have run first in this `make bench`).
# os-ken listens on loopback, ofcd on its tap: os-ken gets the shorter path.
# Prints, never asserts; bounded (about a minute).
#
# usage: run_bench_osken.sh EMULATOR OUT_DIR
set -uo pipefail
EMU=$1
OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"
PORT=16633
work=$(mktemp -d /tmp/ofcd-bench-osken.XXXXXX)
kpid=
cleanup() {
    [ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null && wait "$kpid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

echo
echo "== os-ken (python3-os-ken) on the same loads, listening on 127.0.0.1:$PORT =="
if ! command -v osken-manager >/dev/null; then
    echo "osken-manager not installed (python3-os-ken): no os-ken figures"
    exit 0
fi
# Debian's interpreter, where python3-os-ken lives (not a pyenv shim).
/usr/bin/python3 /usr/bin/osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port $PORT \
    "$here/osken/osken_responder.py" >"$work/osken.log" 2>&1 &
kpid=$!
for _ in $(seq 100); do
    (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break
    sleep 0.1
done
(exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null || { tail "$work/osken.log"; echo "os-ken did not start"; exit 0; }

for n in 100 1000; do
    bench_handshake "$EMU" 127.0.0.1:$PORT "$n" "$OUT/osken_emu_$n.json"
done
bench_echo_flood "$EMU" 127.0.0.1:$PORT "$OUT" osken

python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    try:
        return json.load(open(os.path.join(out, n)))
    except (OSError, ValueError):
        return None
def ms(r, k, p):
    h = r["times_us"][k] if r else None
    return h[p] / 1000 if h and isinstance(h.get(p), (int, float)) else None
def f(v):
    return "-" if v is None else f"{v:.2f}"
def ratio(a, b):
    return "-" if a is None or b is None or a == 0 else f"{b / a:.1f}x"
print(f"{'load':<44} {'ofcd':>10} {'os-ken':>10} {'os-ken/ofcd':>12}")
for n in (100, 1000):
    o, k = load(f"of_emu_{n}.json"), load(f"osken_emu_{n}.json")
    for p in ("p50", "p99"):
        a, b = ms(o, "handshake", p), ms(k, "handshake", p)
        print(f"{f'handshake {n} switches {p} ms':<44} {f(a):>10} {f(b):>10} {ratio(a, b):>12}")
    up = k["switches"]["handshaked_at_end"] if k else "-"
    disc = k["disconnects"]["total"] if k else "-"
    print(f"{'  os-ken: up at the end / disconnects':<44} {'':>10} {f'{up}/{disc}':>10}")
for case, a_name, b_name in (("idle, alone", "of_echo_alone.json", "osken_echo_alone.json"),
                             ("idle, next to the flood", "of_echo_flood.json",
                              "osken_echo_flood.json")):
    o, k = load(a_name), load(b_name)
    for p in ("p50", "p99"):
        a, b = ms(o, "echo_rtt", p), ms(k, "echo_rtt", p)
        print(f"{f'echo RTT {case} {p} ms':<44} {f(a):>10} {f(b):>10} {ratio(a, b):>12}")
for name, who in (("of_flood.json", "ofcd"), ("osken_flood.json", "os-ken")):
    r = load(name)
    if r:
        d = r["duration_s"] or 1
        print(f"  the flood answered by {who}: {r['packet_in'].get('responses', 0) / d:,.0f} "
              f"responses/s, {r['disconnects']['total']} disconnects")
k = load("osken_echo_flood.json")
if k:
    print(f"  os-ken's idle switches next to the flood: {k['disconnects']['total']} disconnects")
PY
