#!/usr/bin/env bash
# Isolation, round 2: what a burst and each attack of the hostile suite cost
# the good switches.
#   - 10,000 emulated switches from one address connecting at once: handshake
#     p50/p99, connection attempts beyond one per switch (refusals, resets,
#     retries), pending connections ofcd gave up; the same load on os-ken
#     (the peer, on loopback) when it is installed.
#   - the echo RTT p50/p99 of 100 good emulated switches alone, then next to
#     each attack (one run of 12 s each; the attack starts 2 s in): the pool
#     squatters, dpid churn, forged flow-stats replies, the REST pre-auth
#     uploads with a login spray.
#   - ofcd's RSS every second during a minute of dpid churn (plot in the
#     report: hostile_churn_rss.csv).
# Prints, never asserts; about four minutes. Needs root (the tap).
#
# usage: run_bench_hostile.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-hostile.XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-hostile-run.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # rest_metric
. "$here/bench_lib.sh"
PEER="python3 $here/../integration/hostile_peer.py"
opid=
kpid=
cleanup() {
    [ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null && wait "$kpid" 2>/dev/null
    stop
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null
ATTACKER=10.66.0.9
# Each burst from an address of its own: the kernel keeps a closed
# connection's port in TIME_WAIT for a minute, and 10,000 of them would
# leave the next burst from the same address short of ports.
LAB1=10.66.0.51
LAB2=10.66.0.52

start() {   # start LOG ARGS...: ofcd on the shipped config plus ARGS
    local log=$1
    shift
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 "$@" \
        >"$log" 2>&1 &
    opid=$!
    timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$log"
    grep -q "ofcd ready" "$log" || { tail "$log"; echo "ofcd did not start"; exit 1; }
    for a in $ATTACKER $LAB1 $LAB2; do ip addr add "$a/24" dev ofc0 2>/dev/null; done
}
stop() {
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        kill -TERM "$opid"
        timeout 10 tail -s 0.05 --pid="$opid" -f /dev/null || kill -KILL "$opid"
    fi
    opid=
}
io_total() { rest_metric "ofcd_openflow_io_total{lcore=\"0\",what=\"$1\"}"; }

# burst_fig JSON: "handshaked p50_ms p99_ms extra_attempts disconnects"
burst_fig() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
h = r["times_us"]["handshake"]
f = lambda v: f"{v / 1000:.0f}" if isinstance(v, (int, float)) else "-"
print(r["switches"]["handshaked"], f(h.get("p50")), f(h.get("p99")),
      r["connect"]["attempts"] - r["config"]["switches"], r["disconnects"]["total"])
PY
}

echo "== 10,000 switches from one address at once (emulator on the tap's kernel side) =="
start "$work/burst.log"
ev0=$(io_total pending_evicted)
"$EMU" --controller 10.66.0.2:6653 --bind $LAB1 --switches 10000 --connect-rate 0 \
    --echo-interval 5000 --dpid-base 0x600000 --duration 20 --quiet \
    --json "$OUT/hostile_burst_ofcd.json" \
    >/dev/null 2>&1
ev=$(( $(io_total pending_evicted) - ev0 ))
stop
read -r bh b50 b99 bextra bdisc < <(burst_fig "$OUT/hostile_burst_ofcd.json")
printf '%-10s %11s %10s %10s %15s %12s %8s\n' controller established hs_p50_ms hs_p99_ms \
    extra_attempts disconnects evicted
printf '%-10s %11s %10s %10s %15s %12s %8s\n' ofcd "$bh" "$b50" "$b99" "$bextra" "$bdisc" "$ev"
if command -v osken-manager >/dev/null; then
    /usr/bin/python3 /usr/bin/osken-manager --ofp-listen-host 127.0.0.1 \
        --ofp-tcp-listen-port 16633 "$here/osken/osken_responder.py" >"$work/osken.log" 2>&1 &
    kpid=$!
    for _ in $(seq 100); do
        (exec 3<>/dev/tcp/127.0.0.1/16633) 2>/dev/null && break
        sleep 0.1
    done
    "$EMU" --controller 127.0.0.1:16633 --switches 10000 --connect-rate 0 --echo-interval 5000 \
        --dpid-base 0x600000 --duration 20 --quiet --json "$OUT/hostile_burst_osken.json" \
        >/dev/null 2>&1
    kill -TERM "$kpid" 2>/dev/null
    wait "$kpid" 2>/dev/null
    kpid=
    read -r kh k50 k99 kextra kdisc < <(burst_fig "$OUT/hostile_burst_osken.json")
    printf '%-10s %11s %10s %10s %15s %12s %8s\n' os-ken "$kh" "$k50" "$k99" "$kextra" \
        "$kdisc" -
fi
echo "(20 s each; extra_attempts: connections beyond one per switch: refused, reset, retried)"

echo
echo "== echo RTT of 100 good switches, alone and next to each attack (12 s, attack from 2 s) =="
start "$work/echo.log"
# echo_case NAME CMD...: 100 switches echo every 100 ms for 12 s; CMD (an
# attack that ends by itself within 10 s) starts 2 s in; "alone" runs no CMD.
echo_case() {
    local name=$1 epid
    shift
    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 100 \
        --dpid-base 0x700000 --duration 12 --quiet --json "$OUT/hostile_echo_$name.json" \
        >/dev/null 2>&1 &
    epid=$!
    if [ $# -gt 0 ]; then
        sleep 2
        "$@" >"$work/attack_$name.out" 2>&1
    fi
    wait "$epid"
    # Whatever the attack left connected is shed before the next case.
    wait_rest_metric 'ofcd_openflow_io_switch_conns{lcore="0"}' 0 40 >/dev/null
}
echo_case alone
echo_case pool-squat bash -c "
    $PEER pin-squat --conns 40 --count 1100 --msg-len 600 --bind $ATTACKER --duration 10 &
    $PEER echo-flood --conns 8 --rcvbuf 1024 --bind $ATTACKER --duration 10 &
    wait"
echo_case xid-top-stats $PEER stats-forge --dpid f00d --bind $ATTACKER --duration 10
echo_case burst-10000 "$EMU" --controller 10.66.0.2:6653 --bind $LAB2 --switches 10000 \
    --connect-rate 0 \
    --echo-interval 5000 --dpid-base 0x600000 --duration 10 --quiet
stop
printf '%-16s %12s %12s %12s\n' case echo_p50_ms echo_p99_ms disconnects
for f in "$OUT"/hostile_echo_*.json; do
    n=${f##*/hostile_echo_}
    n=${n%.json}
    printf '%-16s %12s %12s %12s\n' "$n" "$(emu_fig "$f" echo_p50_ms)" \
        "$(emu_fig "$f" echo_p99_ms)" "$(emu_fig "$f" disconnects | cut -d. -f1)"
done
echo "(attackers from $ATTACKER, the good switches from 10.66.0.1, the bursts from $LAB1, $LAB2)"
