#!/usr/bin/env bash
# What the flight recorder costs (issue 51): ofcd with it (openflow.recorder_kb
# as shipped) and without it (0), alternated ROUNDS times in the same run:
#   - packet_in responses/s, cbench-like (16 emulated switches, 4 ports,
#     window 64, 10 s, the learning switch answering);
#   - the seed's REST load (Kytos' stress script: 250 one-flow POSTs/s from 5
#     clients, 10 s, hey) on 100 connected switches: p50, p99;
#   - ofcd's RSS with 10,000 emulated switches connected and echoing (every
#     5 s, 20 s), and the recorder's own count of messages kept.
# Prints, never asserts. Needs root (the tap).
#
# usage: run_bench_recorder.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-rec.XXXXXX)}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"
for t in hey python3 curl jq; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done
work=$(mktemp -d /tmp/ofcd-bench-rec-run.XXXXXX)
opid=
stop() {
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        kill -TERM "$opid"
        timeout 10 tail -s 0.05 --pid="$opid" -f /dev/null || kill -KILL "$opid"
    fi
    opid=
}
trap 'stop; rm -rf "$work"' EXIT
API=http://127.0.0.1:8181
DEFAULT_KB=$("$OFCD" --config "$CONF" --print-config 2>/dev/null | sed -n 's/^recorder_kb = //p')

start() {   # start KB: ofcd with the learning switch and the recorder at KB
    rm -rf "$work/var"
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
        --apps.topology=false --apps.l2_learning=true --openflow.recorder_kb="$1" \
        >"$work/ofcd.log" 2>&1 &
    opid=$!
    timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$work/ofcd.log"
    grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }
}

# one KB LABEL: the three loads against a fresh ofcd; a line of figures.
one() {
    local kb=$1 label=$2 epid rss recorded pin
    start "$kb"
    "$EMU" --controller 10.66.0.2:6653 --switches 16 --ports 4 --mode throughput --window 64 \
        --connect-rate 0 --dpid-base 6000000 --duration 10 --quiet \
        --json "$work/pin_$label.json" >/dev/null 2>&1
    pin=$(emu_fig "$work/pin_$label.json" responses_s)

    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 1000 --echo-interval 1000 \
        --dpid-base 65536 --duration 60 --quiet >/dev/null 2>&1 &
    epid=$!
    for _ in $(seq 150); do
        [ "$(curl -s "$API/api/v1/switches" | jq '[.switches[] | select(.connected)] | length' \
             2>/dev/null)" = 100 ] && break
        sleep 0.2
    done
    printf '{"flows": [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.0.0.1"}, "actions": [{"action_type": "output", "port": 1}]}]}' \
        >"$work/body.json"
    hey -z 10s -c 5 -q 50 -m POST -T application/json -D "$work/body.json" \
        "$API/api/kytos/flow_manager/v2/flows/00:00:00:00:00:01:00:00" >"$work/hey_$label.txt" 2>&1
    kill "$epid" 2>/dev/null
    wait "$epid" 2>/dev/null
    local p50 p99
    p50=$(sed -n 's/^ *50% in \([0-9.]*\) secs/\1/p' "$work/hey_$label.txt")
    p99=$(sed -n 's/^ *99% in \([0-9.]*\) secs/\1/p' "$work/hey_$label.txt")

    "$EMU" --controller 10.66.0.2:6653 --switches 10000 --connect-rate 2000 --echo-interval 5000 \
        --dpid-base 20000000 --duration 20 --quiet --json "$work/k10_$label.json" >/dev/null 2>&1 &
    epid=$!
    # RSS once all are up and have echoed a while: at the end of the run.
    sleep 18
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$opid/status")
    recorded=$("$(dirname "$OFCD")/ofcdctl" --socket "$(sed -n "s/.*ofcdctl's socket: //p" \
        "$work/ofcd.log" | tail -1)" counters/show openflow_io 2>/dev/null |
        grep -o 'recorded=[0-9]*' | awk -F= '{s += $2} END {print s + 0}')
    wait "$epid" 2>/dev/null
    local up
    up=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["switches"]["handshaked_at_end"])' \
        "$work/k10_$label.json" 2>/dev/null)
    stop
    printf '%-14s %12.0f %10s %10s %12s %10s %12s\n' "$label" "$pin" \
        "$(awk -v s="$p50" 'BEGIN {printf "%.1f", s * 1000}')" \
        "$(awk -v s="$p99" 'BEGIN {printf "%.1f", s * 1000}')" "$((rss / 1024))" "${up:-?}" \
        "$recorded"
    echo "{\"label\": \"$label\", \"recorder_kb\": $kb, \"packet_in_responses_s\": $pin, \"seed_p50_s\": ${p50:-null}, \"seed_p99_s\": ${p99:-null}, \"rss_kb_10000\": $rss, \"switches_up\": ${up:-null}, \"recorded\": $recorded}" \
        >>"$OUT/recorder.jsonl"
}

echo "== the flight recorder's cost: openflow.recorder_kb = $DEFAULT_KB vs 0, $ROUNDS rounds =="
printf '%-14s %12s %10s %10s %12s %10s %12s\n' run pin_resp/s seed_p50 seed_p99 rss_MiB_10k \
    up_10k recorded
: >"$OUT/recorder.jsonl"
for r in $(seq "$ROUNDS"); do
    one 0 "off-$r"
    one "$DEFAULT_KB" "on-$r"
done
echo "(seed p50/p99 in ms; the RSS 18 s into 10,000 switches connecting at 2,000/s and echoing"
echo " every 5 s; recorded: messages the io lcores kept in flight records, 0 when off)"
