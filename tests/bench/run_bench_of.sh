#!/usr/bin/env bash
# OpenFlow channel bench: the switch emulator (tests/bench/ofswitch-emu)
# against ofcd on its tap. Handshake time for N = 100 and 1000 switches and
# the switches' echo RTT with all of them connected and probing every second.
# Prints, never asserts; bounded (about a minute). Needs root.
#
# usage: run_bench_of.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-of.XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-of-run.XXXXXX)
opid=
cleanup() {
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        kill -TERM "$opid"
        timeout 5 tail -s 0.05 --pid="$opid" -f /dev/null || kill -KILL "$opid"
    fi
    rm -rf "$work"
}
trap cleanup EXIT

"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    >"$work/ofcd.log" 2>&1 &
opid=$!
timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$work/ofcd.log"
grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }

echo "== OpenFlow channel: ofswitch-emu against ofcd at 10.66.0.2:6653 =="
printf '%-8s %12s %12s %12s %12s %12s %10s\n' switches hs_p50_ms hs_p99_ms echo_p50_ms \
    echo_p99_ms echo_max_ms disconnects
for n in 100 1000; do
    "$EMU" --controller 10.66.0.2:6653 --switches "$n" --connect-rate 0 --echo-interval 1000 \
        --dpid-base $((n * 100000)) --duration 10 --quiet --json "$OUT/of_emu_$n.json" \
        >"$work/emu_$n.out" 2>&1
    python3 - "$OUT/of_emu_$n.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def pct(h, k):
    v = h.get(k) if h else None
    return f"{v / 1000:.1f}" if isinstance(v, (int, float)) else "-"
t = r["times_us"]
hs, ec = t["handshake"], t["echo_rtt"]
ndisc = r["disconnects"]["total"]
print(f"{sys.argv[2]:<8} {pct(hs,'p50'):>12} {pct(hs,'p99'):>12} {pct(ec,'p50'):>12} "
      f"{pct(ec,'p99'):>12} {pct(ec,'max'):>12} {ndisc:>10}")
PY
done
echo "(each run: all switches connect at once, echo every 1 s from every switch, 10 s;"
echo " JSON reports in $OUT)"
