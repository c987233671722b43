#!/usr/bin/env bash
# One-flow POSTs through etcd next to one node alone, in the same run (issue
# 47's bench): a three-member etcd on loopback, ofcd node 1 on it, 100
# emulated switches connected to it:
#   - wrk, 64 connections, every request a new flow (wrk_new_flow.lua), STEP_S
#     seconds: requests/s, p50, p99;
#   - hey at the seed's rate (Kytos' stress script: 250 one-flow POSTs/s from 5
#     clients, the same flow each time): p50, p99, answers other than 202;
#   - the same two against node 1 started alone (no cluster, its own LMDB),
#     and through a fresh etcd over its JSON gateway (cluster.etcd_api =
#     json) instead of gRPC, the API it left;
#   - a node's catch-up: node 2 stopped while CATCHUP flows (default "10000
#     100000", 200 a request, a switch gone: stored, not sent) go through
#     node 1, then started: the time its copy took from the first missed
#     revision to the last applied, or for a catch-up past the watch's
#     bounds its full read (its log's "caught up with etcd" line).
# Writes OUT_DIR/etcd.json. Prints, never asserts. Needs root (the taps).
#
# usage: run_bench_etcd.sh OFCD_BINARY CONFIG_FILE EMULATOR OUT_DIR
set -uo pipefail
OFCD=$1
EMU=$3
OUT=$4
STEP_S=${STEP_S:-10}
CATCHUP=${CATCHUP:-10000 100000}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../../scripts/cluster-lib.sh"
for t in wrk hey etcd python3 jq; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done
work=$(mktemp -d /tmp/ofcd-bench-etcd.XXXXXX)
epid=
cleanup() {
    [ -n "$epid" ] && kill "$epid" 2>/dev/null
    cl_all_stop
    rm -rf "$work"
}
trap cleanup EXIT
API=http://127.0.0.1:8181

# emu_on: 100 emulated switches (dpids 0x10000..) on node 1, all connected.
emu_on() {
    "$EMU" --controller 10.66.1.2:6653 --switches 100 --connect-rate 1000 \
        --echo-interval 100 --dpid-base 65536 --duration 3600 --quiet >"$work/emu.out" 2>&1 &
    epid=$!
    for _ in $(seq 150); do
        [ "$(curl -s "$API/api/v1/switches" | jq '[.switches[] | select(.connected)] | length' \
             2>/dev/null)" = 100 ] && return 0
        sleep 0.2
    done
    echo "the emulated switches did not all connect"
    return 1
}
emu_off() { kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null; epid=; }

# loads LABEL: the wrk and hey rows of one setup, into $work/LABEL.json.
loads() {
    wrk -t 2 -c 64 -d "${STEP_S}s" --latency -s "$here/wrk_new_flow.lua" "$API" \
        >"$work/wrk_$1.txt" 2>&1
    printf '{"flows": [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.0.0.1"}, "actions": [{"action_type": "output", "port": 1}]}]}' \
        >"$work/body.json"
    hey -z "${STEP_S}s" -c 5 -q 50 -m POST -T application/json -D "$work/body.json" \
        "$API/api/kytos/flow_manager/v2/flows/00:00:00:00:00:01:00:00" >"$work/hey_$1.txt" 2>&1
    python3 - "$work/wrk_$1.txt" "$work/hey_$1.txt" "$1" >"$work/$1.json" <<'PY'
import json, re, sys
w, h, label = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
def ms(v, unit):
    return float(v) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
def wp(p):
    m = re.search(r"^\s*%s%%\s+([0-9.]+)(us|ms|s)" % p, w, re.M)
    return ms(*m.groups()) if m else None
rs = re.search(r"Requests/sec:\s+([0-9.]+)", w)
non = re.search(r"Non-2xx or 3xx responses: (\d+)", w)
def hp(p):
    m = re.search(r"%s%% in ([0-9.]+) secs" % p, h)
    return round(float(m.group(1)) * 1000, 2) if m else None
codes = dict((int(c), int(n)) for c, n in re.findall(r"\[(\d{3})\]\s+(\d+) responses", h))
print(json.dumps({"label": label,
                  "wrk64": {"req_s": float(rs.group(1)) if rs else None, "p50_ms": wp(50),
                            "p99_ms": wp(99), "non_2xx": int(non.group(1)) if non else 0},
                  "seed250": {"p50_ms": hp(50), "p99_ms": hp(99),
                              "answers": codes, "not_202": sum(n for c, n in codes.items()
                                                               if c != 202)}}))
PY
    jq -r '"\(.label): wrk 64 conns \(.wrk64.req_s) POSTs/s p50 \(.wrk64.p50_ms) ms p99 \(.wrk64.p99_ms) ms (non-2xx \(.wrk64.non_2xx)); seed 250/s p50 \(.seed250.p50_ms) ms p99 \(.seed250.p99_ms) ms (not 202: \(.seed250.not_202))"' \
        "$work/$1.json"
}

echo "== one-flow POSTs: one node alone, then through a three-member etcd (same run) =="
CL_DIR=$work
cl_node_start 1 "$work" --cluster.etcd_endpoints= || exit 1
emu_on || exit 1
loads alone
emu_off
cl_node_stop 1
rm -rf "$work/node1"

# The gateway first, on an etcd of its own, so that gRPC's run starts as
# fresh and the catch-up below follows it.
cl_etcd_start "$work/gw" || { echo "the three-member etcd did not start"; exit 1; }
cl_node_start 1 "$work/gw" --cluster.etcd_api=json || exit 1
emu_on || exit 1
loads etcd_json
emu_off
cl_all_stop
CL_DIR=$work

cl_etcd_start "$work" || { echo "the three-member etcd did not start"; exit 1; }
cl_node_start 1 "$work" || exit 1
emu_on || exit 1
loads etcd

echo "== a node's catch-up after missed changes =="
# The switches gone: known to node 1, their flows stored ("force"), not sent.
emu_off
cl_node_start 2 "$work" || exit 1
catchups=()
for n in $CATCHUP; do
    cl_node_stop 2 || exit 1
    python3 - "$n" <<'PY' || { echo "the $n flows through node 1 failed"; exit 1; }
import http.client, json, sys
n = int(sys.argv[1])
conn = http.client.HTTPConnection("127.0.0.1", 8181, timeout=120)
path = "/api/kytos/flow_manager/v2/flows/00:00:00:00:00:01:00:00"
base = {10000: 1, 100000: 2}.get(n, 3) << 20
for r in range(0, n, 200):
    body = {"force": True, "flows": [{"priority": 300, "match": {"dl_type": 2048,
            "nw_src": "%d.%d.%d.%d" % ((base + i) >> 24 & 255, (base + i) >> 16 & 255,
                                        (base + i) >> 8 & 255, (base + i) & 255)}}
            for i in range(r, min(n, r + 200))]}
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    res = conn.getresponse()
    text = res.read()
    if res.status != 202:
        sys.exit("POST: %d %s" % (res.status, text[:200]))
PY
    mv "$work/node2.log" "$work/node2.before-$n.log"
    cl_node_start 2 "$work" || exit 1
    # Resumed from its revision, or (a catch-up past the watch's bounds) a
    # full read: either way the line says how long its copy took.
    line=$(grep -o 'caught up with etcd at revision [0-9]*: .* in [0-9]* ms' "$work/node2.log" |
           tail -1)
    ms=$(grep -o '[0-9]* ms$' <<<"$line" | awk '{ print $1 }')
    echo "catch-up after $n missed flows: ${ms:-?} ms ($line)"
    catchups+=("{\"missed_flows\": $n, \"ms\": ${ms:-null}}")
done
python3 - "$work/alone.json" "$work/etcd.json" "$work/etcd_json.json" "$OUT/etcd.json" \
    "${catchups[@]}" <<'PY'
import json, sys
alone, etcd, gw = (json.load(open(f)) for f in sys.argv[1:4])
out = {"alone": alone, "etcd": etcd, "etcd_json": gw,
       "catchup": [json.loads(c) for c in sys.argv[5:]]}
a, e = alone["wrk64"]["req_s"], etcd["wrk64"]["req_s"]
out["etcd_share_of_alone"] = round(e / a, 3) if a and e else None
json.dump(out, open(sys.argv[4], "w"), indent=1)
print("through etcd: %.0f%% of one node alone (wrk 64 conns)" % (100 * out["etcd_share_of_alone"])
      if out["etcd_share_of_alone"] else "through etcd: no figure")
PY
