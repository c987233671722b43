#!/usr/bin/env bash
# The seed scenario with real switches: 50 Open vSwitch bridges (user space,
# 1 s inactivity probe) and the Kytos pull request's stress command, one-flow
# POSTs on v2/flows/{dpid} to one bridge at 250/s (hey -c 5 -q 50, the seed's
# body), for ofcd (durable before 202) and, with the same bridges pointed at
# it, os-ken (osken/osken_rest_peer.py: sends the FLOW_MOD, stores nothing).
# ROUNDS rounds (default 3) of each, alternating; medians of p50, p99 and
# requests/s, the answers that were not 202, and OVS's disconnects
# (controller reconnects seen in ovs-vswitchd's log); and the floor of the
# same load on this machine: hey at the same rate against ofcd's
# GET /api/v1/health (no store, no switch) with the bridges on ofcd, what
# any answer costs here before a flow is handled; the disk's sync under the
# same load (a 4 KiB write + fdatasync at 250/s in ofcd's data directory,
# the bridges on ofcd); and ofcd's own time split
# into its stages (/metrics ofcd_rest_change_stage_seconds: receive, check,
# wait, commit, apply, resume). Prints, never asserts.
# About two minutes. Needs root. For experiments: KINDS (default
# "ofcd osken"), OFCD_ARGS (extra ofcd options), DATA_BASE (where ofcd's
# store lives, e.g. /dev/shm).
#
# usage: run_bench_seed_ovs.sh OFCD_BINARY CONFIG_FILE [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
OUT=${3:-$(mktemp -d /tmp/ofcd-bench-seed.XXXXXX)}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-10}
N=50
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../integration/ovs_lib.sh"
for t in hey osken-manager ovs-vswitchd; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done
work=$(mktemp -d /tmp/ofcd-bench-seed-run.XXXXXX)
opid= kpid=
cleanup() {
    for p in $opid $kpid; do
        kill -TERM "$p" 2>/dev/null && timeout 5 tail -s 0.05 --pid="$p" -f /dev/null
    done
    ovs_stop
    rm -rf "$work" "${data:-}"
}
trap cleanup EXIT

body='{"flows": [{"priority": 10, "match": {"in_port": 1, "dl_vlan": 100},
  "actions": [{"action_type": "output", "port": 2}]}]}'
ovs_start "$work/ovs" >/dev/null 2>&1 || { echo "cannot start Open vSwitch"; exit 1; }

# connected N SECS: until N bridges' controllers are connected.
connected() {
    ovs_wait_connected "$1" "$2" 2>/dev/null
}
reconnects() {
    grep -c 'connected$' "$work/ovs/vswitchd.log"
}

# one KIND ROUND URL: hey against URL, the result in OUT/seed_ovs_KIND_ROUND.txt
one() {
    if [ "$1" = sync ]; then
        # The disk's own answer under the same load: a 4 KiB pwrite +
        # fdatasync at the POSTs' rate in ofcd's data directory, the bridges
        # on ofcd; p50 and p99 in ms.
        python3 - "$data" "$SECS" >"$OUT/seed_ovs_$1_$2.txt" <<'PY'
import os, sys, time
fn = os.path.join(sys.argv[1], "syncprobe")
fd = os.open(fn, os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b"\0" * (4 << 20))
os.fdatasync(fd)
lat, end, i = [], time.monotonic() + float(sys.argv[2]), 0
while time.monotonic() < end:
    t = time.perf_counter()
    os.pwrite(fd, b"x" * 4096, (i % 1024) * 4096)
    os.fdatasync(fd)
    lat.append((time.perf_counter() - t) * 1e3)
    i += 1
    time.sleep(max(0.0, 0.004 - (time.perf_counter() - t)))
os.close(fd)
os.unlink(fn)
lat.sort()
print(f"{lat[len(lat) // 2]:.3f} {lat[int(len(lat) * 0.99)]:.3f} {len(lat)}")
PY
        return
    fi
    if [ "$1" = floor ]; then
        hey -z "${SECS}s" -c 5 -q 50 "$3/api/v1/health" >"$OUT/seed_ovs_$1_$2.txt" 2>&1
        return
    fi
    hey -z "${SECS}s" -c 5 -q 50 -m POST -T application/json -d "$body" \
        "$3/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:01" \
        >"$OUT/seed_ovs_$1_$2.txt" 2>&1
}

KINDS=${KINDS:-ofcd osken floor sync}
data=$(mktemp -d "${DATA_BASE:-$work}/ofcd-seed-var.XXXXXX")
# shellcheck disable=SC2086
"$OFCD" --config "$CONF" --app.data_dir="$data" --app.stats_log_interval_s=0 --apps.topology=false ${OFCD_ARGS:-} \
    >"$work/ofcd.log" 2>&1 &
opid=$!
wait_for_line "$work/ofcd.log" 'ofcd ready|ERROR' 60
grep -q 'ofcd ready' "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }
OSKEN_REST_PORT=18181 osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port 16633 \
    "$here/osken/osken_rest_peer.py" >"$work/osken.log" 2>&1 &
kpid=$!
ovs_add_bridges $N tcp:10.66.0.2:6653 1000 || { echo "cannot add bridges"; exit 1; }
for r in $(seq 1 "$ROUNDS"); do
    for kind in $KINDS; do
        ctl=tcp:10.66.0.2:6653 url=http://127.0.0.1:8181
        [ "$kind" = osken ] && ctl=tcp:127.0.0.1:16633 url=http://127.0.0.1:18181
        args=()
        for i in $(seq 1 $N); do
            args+=(-- set-controller "br$i" "$ctl" -- set controller "br$i" inactivity_probe=1000)
        done
        ovs_vsctl "${args[@]}"
        connected $N 30 || echo "($kind round $r: not all $N bridges connected)"
        # Until the controller knows br1 (os-ken answers 404 before).
        for _ in $(seq 100); do
            [ "$kind" = floor ] || [ "$kind" = sync ] && break
            [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
                -d "$body" "$url/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:10:01")" = 202 ] &&
                break
            sleep 0.1
        done
        before=$(reconnects)
        [ "$kind" = ofcd ] && curl -s http://127.0.0.1:8181/metrics >"$OUT/seed_ovs_ofcd_${r}_m0.txt"
        one "$kind" "$r" "$url"
        [ "$kind" = ofcd ] && curl -s http://127.0.0.1:8181/metrics >"$OUT/seed_ovs_ofcd_${r}_m1.txt"
        echo $(( $(reconnects) - before )) >"$OUT/seed_ovs_${kind}_$r.reconnects"
    done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def hey(path, ok):
    t = open(path).read()
    def pct(p):
        m = re.search(rf"\s{p}% in ([\d.]+) secs", t)
        return float(m.group(1)) * 1000 if m else float("nan")
    rps = re.search(r"Requests/sec:\s+([\d.]+)", t)
    codes = dict((int(c), int(n)) for c, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", t))
    return {"p50": pct(50), "p99": pct(99), "rps": float(rps.group(1)) if rps else 0.0,
            "not202": sum(n for c, n in codes.items() if c != ok)}
res = {}
import os
sync = [open(f"{out}/seed_ovs_sync_{r}.txt").read().split() for r in range(1, rounds + 1)
        if os.path.exists(f"{out}/seed_ovs_sync_{r}.txt")]
if sync:
    res["sync"] = {"p50": statistics.median(float(x[0]) for x in sync),
                   "p99": statistics.median(float(x[1]) for x in sync),
                   "n": sum(int(x[2]) for x in sync)}
for kind in ("ofcd", "osken", "floor"):
    if not os.path.exists(f"{out}/seed_ovs_{kind}_1.txt"):
        res[kind] = {"p50": float("nan"), "p99": float("nan"), "rps": 0, "not202": 0, "reconnects": 0}
        continue
    ok = 200 if kind == "floor" else 202
    runs = [hey(f"{out}/seed_ovs_{kind}_{r}.txt", ok) for r in range(1, rounds + 1)]
    rec = [int(open(f"{out}/seed_ovs_{kind}_{r}.reconnects").read()) for r in range(1, rounds + 1)]
    res[kind] = {k: statistics.median(x[k] for x in runs) for k in ("p50", "p99", "rps")}
    res[kind]["not202"] = sum(x["not202"] for x in runs)
    res[kind]["reconnects"] = sum(rec)
# One histogram family's bucket counts gained over each ofcd round, all
# rounds summed: {stage label or "": {le: count}}.
def buckets(path, family):
    h = {}
    for line in open(path):
        m = re.match(rf'{family}_bucket\{{(?:stage="(\w+)",)?le="([^"]+)"\}} (\d+)', line)
        if m:
            h.setdefault(m.group(1) or "", {})[m.group(2)] = int(m.group(3))
    return h
def gained(family):
    acc = {}
    for r in range(1, rounds + 1):
        try:
            a = buckets(f"{out}/seed_ovs_ofcd_{r}_m0.txt", family)
            b = buckets(f"{out}/seed_ovs_ofcd_{r}_m1.txt", family)
        except OSError:
            continue
        for k, bk in b.items():
            for le, n in bk.items():
                acc.setdefault(k, {})[le] = acc.get(k, {}).get(le, 0) + n - a.get(k, {}).get(le, 0)
    return acc
# ofcd's own view (ofcd_rest_request_seconds: headers in to answer out):
# what share of the POSTs it answered within each bound.
inside = gained("ofcd_rest_request_seconds").get("", {})
if inside.get("+Inf"):
    res["ofcd_inside"] = {le: inside[le] / inside["+Inf"] for le in inside}
# Where ofcd's time went, stage by stage (ofcd_rest_change_stage_seconds):
# p50 and p99 of each, read off the buckets (linear inside one).
st = gained("ofcd_rest_change_stage_seconds")
def quantile(buckets, q):
    total = buckets.get("+Inf", 0)
    if not total:
        return float("nan")
    prev_le, prev_n = 0.0, 0
    for le, n in sorted(((float(k) if k != "+Inf" else float("inf"), v) for k, v in buckets.items())):
        if n >= q * total:
            if le == float("inf"):
                return prev_le * 1000
            frac = (q * total - prev_n) / (n - prev_n) if n > prev_n else 1.0
            return (prev_le + (le - prev_le) * frac) * 1000
        prev_le, prev_n = le, n
    return float("nan")
if st:
    res["ofcd_stages"] = {name: {"p50": quantile(b, 0.5), "p99": quantile(b, 0.99),
                                 "n": b.get("+Inf", 0)} for name, b in st.items()}
json.dump(res, open(f"{out}/seed_ovs.json", "w"), indent=1)
o, k = res["ofcd"], res["osken"]
print(f"== the seed with 50 OVS bridges: one-flow POSTs at 250/s (hey -c 5 -q 50), medians of {rounds} ==")
print(f"{'':28} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} {'not 202':>8} {'reconnects':>10}")
label = ("ofcd (202 once queued)" if "durability=async" in os.environ.get("OFCD_ARGS", "")
         else "ofcd (durable before 202)")
for name, r in ((label, o), ("os-ken (stores nothing)", k),
                ("floor: ofcd GET health", res["floor"])):
    print(f"{name:28} {r['p50']:>8.2f} {r['p99']:>8.2f} {r['rps']:>8.1f} {r['not202']:>8} "
          f"{r['reconnects']:>10}")
if "ofcd_inside" in res:
    print("ofcd's own time (headers in to answer out), share of its answers within: " +
          ", ".join(f"{float(le) * 1000:g} ms {v * 100:.1f}%" for le, v in res["ofcd_inside"].items()
                    if le != "+Inf" and float(le) <= 0.025))
if "sync" in res:
    print(f"this disk under the same load (bridges on ofcd): a 4 KiB write + fdatasync at 250/s, "
          f"p50 {res['sync']['p50']:.2f} ms, p99 {res['sync']['p99']:.2f} ms")
if "ofcd_stages" in res:
    print("ofcd's time by stage, ms (p50/p99 from its histogram): " +
          ", ".join(f"{name} {v['p50']:.2f}/{v['p99']:.2f}" for name, v in res["ofcd_stages"].items()))
PY
