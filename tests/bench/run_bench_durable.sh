#!/usr/bin/env bash
# Durable one-flow POSTs (issue 30): wrk -c 32 and -c 64, a new flow per
# request on 100 emulated switches, for each way ofcd answers a change —
# LMDB's own syncs (the default), store.journal = true, on the disk
# flow_manager.durability = group (one sync per commit: a crash of the
# machine may undo the last commit), and flow_manager.durability = async
# (not durable: the ceiling of the REST path) — with ofcd's data on this
# disk and on tmpfs (the disk taken out).
# One ofcd per (setting, medium); RUN_S seconds of each load (default 5).
# Prints req/s and p99 per cell, writes OUT_DIR/durable.json. Prints, never
# asserts. About two minutes. Needs root (the tap).
#
# usage: run_bench_durable.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-durable.XXXXXX)}
RUN_S=${RUN_S:-5}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # wait_for_line, rest_metric
API=http://127.0.0.1:8181
for t in wrk python3; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done
work=$(mktemp -d /tmp/ofcd-bench-durable.XXXXXX)
opid= epid=
stop() {
    local p
    for p in $epid $opid; do
        kill -TERM "$p" 2>/dev/null && timeout 10 tail -s 0.05 --pid="$p" -f /dev/null
        kill -KILL "$p" 2>/dev/null
    done
    opid= epid=
}
cleanup() { stop; rm -rf "$work" /dev/shm/ofcd-bench-durable.*; }
trap cleanup EXIT

# cell MEDIUM_DIR NAME OFCD_ARGS...: one ofcd, both loads; appends
# "name medium conns req_s p99_ms" lines to $work/rows.
cell() {
    local base=$1 name=$2 medium c data
    shift 2
    medium=disk
    [ "$base" = /dev/shm ] && medium=tmpfs
    data=$(mktemp -d "$base/ofcd-bench-durable.XXXXXX")
    "$OFCD" --config "$CONF" --app.data_dir="$data" --app.stats_log_interval_s=0 --apps.topology=false \
        --rest.max_conns_per_ip=96 --rest.threads=4 "$@" >"$work/ofcd_${name}_${medium}.log" 2>&1 &
    opid=$!
    wait_for_line "$work/ofcd_${name}_${medium}.log" 'ofcd ready|ERROR' 60 >/dev/null
    if ! grep -q "ofcd ready" "$work/ofcd_${name}_${medium}.log"; then
        echo "$name on $medium: ofcd did not start" >&2
        stop
        rm -rf "$data"
        return
    fi
    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 65536 --duration $((RUN_S * 2 + 30)) --quiet >/dev/null 2>&1 &
    epid=$!
    for _ in $(seq 100); do
        [ "$(rest_metric ofcd_switches_up)" = 100 ] && break
        sleep 0.1
    done
    for c in 32 64; do
        wrk -t 2 -c $c -d "${RUN_S}s" --latency -s "$here/wrk_new_flow.lua" "$API" \
            >"$work/wrk_${name}_${medium}_$c.txt" 2>&1
        python3 - "$work/wrk_${name}_${medium}_$c.txt" "$name" "$medium" "$c" \
            >>"$work/rows" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"Requests/sec:\s+([\d.]+)", t)
p = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)", t, re.M)
scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", t)
print(sys.argv[2], sys.argv[3], sys.argv[4], m.group(1) if m else "nan",
      "%.2f" % (float(p.group(1)) * scale[p.group(2)]) if p else "nan",
      bad.group(1) if bad else 0)
PY
    done
    stop
    rm -rf "$data"
}

# The disk's own answer first: one 4 KiB pwrite + fdatasync of a file
# written ahead, 2,000 times (what one commit's sync costs at the least).
python3 - "$work" >"$work/sync" <<'PY'
import os, sys, time
fn = os.path.join(sys.argv[1], "syncprobe")
fd = os.open(fn, os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b"\0" * (16 << 20))
os.fdatasync(fd)
lat = []
for i in range(2000):
    t = time.perf_counter()
    os.pwrite(fd, b"x" * 4096, i * 4096)
    os.fdatasync(fd)
    lat.append((time.perf_counter() - t) * 1e3)
os.close(fd)
os.unlink(fn)
lat.sort()
print(f"{lat[1000]:.3f} {lat[1979]:.3f}")
PY
read -r sync_p50 sync_p99 <"$work/sync"
echo "== this disk: a 4 KiB write and fdatasync, 2,000 times: p50 $sync_p50 ms, p99 $sync_p99 ms =="
echo "== durable one-flow POSTs: wrk -c 32 / -c 64, ${RUN_S} s each, 100 switches =="
: >"$work/rows"
for base in /tmp /dev/shm; do
    cell "$base" lmdb
    cell "$base" journal --store.journal=true
    [ "$base" = /tmp ] && cell "$base" group --flow_manager.durability=group
    cell "$base" async --flow_manager.durability=async
done
python3 - "$work/rows" "$OUT/durable.json" "$sync_p50" "$sync_p99" <<'PY'
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
res = {"sync_4k_ms": {"p50": float(sys.argv[3]), "p99": float(sys.argv[4])}}
for name, medium, conns, rps, p99, bad in rows:
    res.setdefault(name, {}).setdefault(medium, {})[conns] = {
        "req_s": float(rps), "p99_ms": float(p99), "non_2xx": int(bad)}
json.dump(res, open(sys.argv[2], "w"), indent=1)
label = {"lmdb": "LMDB's two syncs (default)", "journal": "store.journal = true",
         "group": "durability = group (one sync)", "async": "durability = async (not durable)"}
print(f"{'answer':<34} {'medium':<6} {'-c 32 req/s':>12} {'p99 ms':>7} {'-c 64 req/s':>12} {'p99 ms':>7}")
for name in ("lmdb", "journal", "group", "async"):
    for medium in ("disk", "tmpfs"):
        c = res.get(name, {}).get(medium, {})
        if not c and name == "group":
            continue
        f = lambda k, f2: f"{c[k][f2]:,.0f}" if k in c and f2 == "req_s" else (
            f"{c[k][f2]:.1f}" if k in c else "-")
        print(f"{label[name]:<34} {medium:<6} {f('32', 'req_s'):>12} {f('32', 'p99_ms'):>7} "
              f"{f('64', 'req_s'):>12} {f('64', 'p99_ms'):>7}")
PY
echo "(the same ofcd answers both loads; non-2xx answers are in durable.json)"
