#!/usr/bin/env bash
# REST flow-manager bench, the Kytos stress scenario: 100 emulated switches
# connected (echo every 100 ms from each), one-flow POSTs to
# /api/kytos/flow_manager/v2/flows/{dpid} at increasing offered rates with
# hey (250/s as in Kytos' own test, then 1000/s and 4000/s), then the
# maximum with wrk (unique flows spread over the 100 switches). For each
# step: requests/s answered, latency p50/p90/p99/max, flows/s confirmed
# installed by barrier replies, and the echo RTT and disconnects the
# switches saw during the step. Prints, never asserts; bounded (~90 s).
# Needs root (the tap).
#
# usage: run_bench_rest.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-rest.XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-rest-run.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # rest_metric
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
STEP_S=8
opid=
epid=
cleanup() {
    [ -n "$epid" ] && kill -INT "$epid" 2>/dev/null
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        kill -TERM "$opid"
        timeout 5 tail -s 0.05 --pid="$opid" -f /dev/null || kill -KILL "$opid"
    fi
    rm -rf "$work"
}
trap cleanup EXIT
for t in hey wrk python3; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done

"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false ${OFCD_EXTRA:-} \
    >"$work/ofcd.log" 2>&1 &
opid=$!
timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$work/ofcd.log"
grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }

installed() { rest_metric 'ofcd_flow_manager_total{what="confirmed"}'; }
queued() { rest_metric ofcd_flow_manager_queued; }

# emu_start NAME SECONDS: 100 switches (dpids 0x10000..), echo every 100 ms.
# Their connects are spread over 100 ms (--connect-rate 1000), so their
# echoes are too, as real switches' are: all in phase, the echo p99 is the
# drain of a burst of 100 through the port, whatever the REST load.
emu_start() {
    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 1000 --echo-interval 100 \
        --dpid-base 65536 --duration "$2" --quiet --json "$OUT/rest_emu_$1.json" \
        >"$work/emu_$1.out" 2>&1 &
    epid=$!
    for _ in $(seq 100); do
        [ "$(curl -s "$API/api/v1/switches" | python3 -c 'import json,sys
print(sum(1 for s in json.load(sys.stdin)["switches"] if s["connected"]))')" = 100 ] && return 0
        sleep 0.1
    done
    echo "the emulated switches did not all connect"
    return 1
}

# drain START_INSTALLED START_NS: wait until nothing is queued and the
# installed counter stops; print flows/s confirmed since START_NS.
drain() {
    local i0=$1 t0=$2 last=-1 cur
    for _ in $(seq 100); do
        cur=$(installed)
        [ "$(queued)" = 0 ] && [ "$cur" = "$last" ] && break
        last=$cur
        sleep 0.2
    done
    local t1
    t1=$(date +%s%N)
    python3 -c "print(f'{($cur - $i0) / (($t1 - $t0) / 1e9):.0f}')"
}

echo "== REST flow manager: one-flow POSTs (Kytos stress scenario), 100 switches connected =="
printf '%-10s %9s %9s %9s %9s %9s %11s %12s %12s %12s %6s\n' offered req_s p50_ms p90_ms \
    p99_ms max_ms non_2xx flows_s_conf echo_p50_ms echo_p99_ms disc
body='{"flows": [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.0.0.1"}, "actions": [{"action_type": "output", "port": 1}]}]}'
printf '%s' "$body" >"$work/body.json"
for rate in 250 1000 4000; do
    emu_start "$rate" $((STEP_S + 6)) || exit 1
    i0=$(installed)
    t0=$(date +%s%N)
    # hey -q is per worker: 10 workers share the offered rate.
    hey -z "${STEP_S}s" -c 10 -q $((rate / 10)) -m POST -T application/json \
        -D "$work/body.json" "$FM/flows/00:00:00:00:00:01:00:00" >"$work/hey_$rate.txt" 2>&1
    fps=$(drain "$i0" "$t0")
    wait "$epid"
    epid=
    python3 "$here/rest_bench_parse.py" hey "$work/hey_$rate.txt" "$OUT/rest_emu_$rate.json" \
        "$rate" "$fps" "$OUT/rest_$rate.json"
done
# The maximum: wrk, 32 connections, every request a new flow on one of the
# 100 switches (so per-switch pacing does not bind).
emu_start max $((STEP_S + 8)) || exit 1
i0=$(installed)
t0=$(date +%s%N)
wrk -t 2 -c 32 -d "${STEP_S}s" --latency -s "$here/wrk_new_flow.lua" "$API" >"$work/wrk.txt" 2>&1
fps=$(drain "$i0" "$t0")
wait "$epid"
epid=
python3 "$here/rest_bench_parse.py" wrk "$work/wrk.txt" "$OUT/rest_emu_max.json" max "$fps" \
    "$OUT/rest_max.json"
echo "(each step ${STEP_S} s; flows/s confirmed = barrier-confirmed installs from the step's start"
echo " until the queue drained; pacing: flow_manager.pacing_per_s = 1000 per owner per switch,"
echo " so the fixed-rate steps, all on one switch, are capped at 1000 installs/s by design)"
