#!/usr/bin/env bash
# Where a durable REST POST's time goes (docs/performance.md): ofcd with 100
# emulated switches, one load for 10 s, then what the store did for it —
# commits, changes per commit, mean commit time, bytes written to disk per
# request — and, with PERF=1, CPU by thread (perf record -a). Prints,
# never asserts. Needs root.
#
#   LOAD=wrk  (default) wrk -t 2 -c CONNS, a new flow per request on the
#             100 switches (CONNS default 256)
#   LOAD=seed the seed's load: hey -c 5 -q 50 (250/s), one flow on one switch
#   DATA_BASE directory for ofcd's data dir (default /tmp; /dev/shm takes
#             the disk out)
#   OFCD_EXTRA more ofcd arguments (e.g. --rest.threads=2)
#   KEEP_LOG=FILE  keep ofcd's log there
#   PERF=1    perf record -a -g for 4 s of the load: CPU by thread; and with
#             PERF_DATA=FILE the recording is kept there (perf report -i)
#
# usage: rest_profile.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # wait_for_line, rest_metric
work=$(mktemp -d "${DATA_BASE:-/tmp}/ofcd-rest-profile.XXXXXX")
API=http://127.0.0.1:8181
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null && timeout 5 tail -s 0.05 --pid="$p" -f /dev/null
    done
    [ -n "${KEEP_LOG:-}" ] && cp "$work/ofcd.log" "$KEEP_LOG"; rm -rf "$work"
}
trap cleanup EXIT

# wrk's connections all come from one address: room for them all.
"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
    --rest.max_conns_per_ip=$(( ${CONNS:-256} + 16 )) ${OFCD_EXTRA:-} >"$work/ofcd.log" 2>&1 &
opid=$!
pids+=($opid)
wait_for_line "$work/ofcd.log" 'ofcd ready|ERROR' 60
grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }
"$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 100 \
    --dpid-base 65536 --duration 30 --quiet >"$work/emu.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    [ "$(rest_metric ofcd_switches_up)" = 100 ] && break
    sleep 0.1
done

echo '{"flows": [{"priority": 10, "match": {"in_port": 1}, "actions": [{"action_type": "output", "port": 2}]}]}' \
    >"$work/body.json"

store_line() { grep "stats: store: commits" "$work/ofcd.log" | tail -1; }
kill -USR1 "$opid"
wait_for_line "$work/ofcd.log" 'stats: store: commits' 5 >/dev/null
s0=$(store_line)
io0=$(awk '/^write_bytes/ {print $2}' "/proc/$opid/io")
t0=$(date +%s%N)
if [ "${LOAD:-wrk}" = seed ]; then
    hey -z 10s -c 5 -q 50 -m POST -T application/json -D "$work/body.json" \
        "$API/api/kytos/flow_manager/v2/flow_mods/00:00:00:00:00:01:00:00" >"$work/load.txt" 2>&1 &
else
    wrk -t 2 -c "${CONNS:-256}" -d 10s --latency -s "$here/wrk_new_flow.lua" "$API" >"$work/load.txt" 2>&1 &
fi
lpid=$!
if [ -n "${PERF:-}" ]; then
    sleep 3
    perf record -a -g -o "$work/perf.data" -- sleep 4 >/dev/null 2>&1
fi
wait "$lpid"
t1=$(date +%s%N)
io1=$(awk '/^write_bytes/ {print $2}' "/proc/$opid/io")
lines=$(grep -c . "$work/ofcd.log")
kill -USR1 "$opid"
for _ in $(seq 50); do
    [ "$(grep -c . "$work/ofcd.log")" -gt "$lines" ] && [ "$(store_line)" != "$s0" ] && break
    sleep 0.1
done
s1=$(store_line)
python3 - "$work/load.txt" "$s0" "$s1" "$((io1 - io0))" "$(((t1 - t0) / 1000000))" <<'PY'
import re, sys
text, s0, s1, io, ms = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def f(s, k):
    return int(re.search(rf"\b{k}=(\d+)", s).group(1))
d = {k: f(s1, k) - f(s0, k) for k in ("commits", "changes", "commit_ns_total", "records_put")}
m = re.search(r"Requests/sec:\s+([\d.]+)", text)
rps = float(m.group(1)) if m else 0
p99 = re.search(r"^\s+99%(?: in)?\s+([\d.]+\s*\w+)", text, re.M)
p50 = re.search(r"^\s+50%(?: in)?\s+([\d.]+\s*\w+)", text, re.M)
print(f"requests/s {rps:,.0f}  p50 {p50.group(1) if p50 else '-'}  p99 {p99.group(1) if p99 else '-'}")
c = d["commits"] or 1
print(f"store: {d['commits']} commits, {d['changes'] / c:.1f} changes each, mean commit "
      f"{d['commit_ns_total'] / c / 1e6:.2f} ms; {d['records_put']} flows put")
n = d["records_put"] or 1
print(f"disk: {io / 2**20:,.0f} MiB written in {ms} ms, {io / n / 1024:.1f} KiB per flow put")
PY
if [ -n "${PERF:-}" ]; then
    echo "CPU by thread (share of both cores' samples):"
    perf report -i "$work/perf.data" --no-children --sort comm --stdio -g none 2>/dev/null |
        grep '%' | head -8
    [ -n "${PERF_DATA:-}" ] && cp "$work/perf.data" "$PERF_DATA" && echo "perf data: $PERF_DATA (ofcd pid $opid)"
fi
