#!/usr/bin/env bash
# Isolation and memory bench: what ofcd holds per idle connection, per
# established switch and per stored flow (RSS growth divided by the count),
# its RSS with 10,000 emulated switches and with 1,000,000 stored flows; and
# the echo RTT 100 good emulated switches see alone and next to the hostile
# peers of tests/integration/hostile_peer.py (8 connections flooding echo
# requests without reading, 2,000 silent connections, 8 HELLO-then-flood
# connections, a switch flooding ever-new ports and unfinished multipart
# replies), three runs each, medians printed. Prints, never asserts;
# about four minutes. Needs root (the tap).
#
# usage: run_bench_isolation.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-iso.XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-iso-run.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # rest_metric
. "$here/bench_lib.sh"
PEER="python3 $here/../integration/hostile_peer.py"
API=http://127.0.0.1:8181
opid=
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null; done
    stop
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null
# The attackers come from an address of their own on the tap's kernel side,
# as they would on a network (connections per source address are bounded).
ATTACKER=10.66.0.9

start() {   # start LOG ARGS...: ofcd on the shipped config plus ARGS
    local log=$1
    shift
    bench_start "$log" "$ATTACKER" -- "$@"
    sleep 2                                  # let start-up allocations settle
}
stop() { bench_stop; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$opid/status"; }
# until METRIC >= N or SECS pass
wait_ge() {
    local end=$((SECONDS + $3)) v
    while :; do
        v=$(rest_metric "$1")
        python3 -c "import sys; sys.exit(0 if float('$v' or 0) >= $2 else 1)" && return 0
        [ $SECONDS -ge $end ] && { echo "($1 = $v after $3 s, wanted $2)"; return 1; }
        sleep 0.5
    done
}
per() { python3 -c "print(f'{($2 - $1) * 1024 / $3:.0f}')"; }   # per KB0 KB1 N: bytes each

echo "== memory: ofcd's RSS growth per thing it holds =="
# Room for the counts measured (the shipped bounds are what the attacks meet).
start "$work/mem.log" --openflow.max_pending=20000 \
    --openflow.hello_timeout_ms=600000 --openflow.stats_interval_s=0 \
    --flow_manager.pacing_per_s=0 --flow_manager.consistency=false
r0=$(rss_kb)
NIDLE=5000
$PEER silent --conns $NIDLE --duration 30 --bind $ATTACKER >"$work/silent.out" 2>&1 &
pids+=($!)
wait_ge 'ofcd_openflow_io_pending{lcore="0"}' $NIDLE 30
r1=$(rss_kb)
kill -INT "${pids[-1]}" 2>/dev/null
wait "${pids[-1]}" 2>/dev/null
unset 'pids[-1]'
wait_rest_metric 'ofcd_openflow_io_pending{lcore="0"}' 0 30 >/dev/null
NSW=10000
"$EMU" --controller 10.66.0.2:6653 --switches $NSW --connect-rate 2000 --echo-interval 5000 \
    --dpid-base 30000000 --duration 40 --quiet --json "$OUT/iso_emu_10000.json" \
    >"$work/emu10k.out" 2>&1 &
pids+=($!)
r2=$(rss_kb)
wait_ge ofcd_switches_up $NSW 40
r3=$(rss_kb)
kill -INT "${pids[-1]}" 2>/dev/null
wait "${pids[-1]}" 2>/dev/null
unset 'pids[-1]'
wait_rest_metric ofcd_switches_up 0 30 >/dev/null

# 1,000,000 flows: 1,000 POSTs of 1,000 flows over 100 emulated switches.
"$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 1000 \
    --dpid-base 40000000 --duration 300 --quiet >"$work/emu100.out" 2>&1 &
pids+=($!)
wait_ge ofcd_switches_up 100 30
r4=$(rss_kb)
t0=$(date +%s%N)
python3 - "$API" 40000000 <<'PY'
import concurrent.futures, http.client, json, sys
api, base = sys.argv[1].split("//")[1], int(sys.argv[2])
def dpid(i):
    return ":".join(f"{(base + i) >> s & 0xff:02x}" for s in range(56, -8, -8))
def post(k):
    c = http.client.HTTPConnection(api, timeout=120)
    flows = [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.%d.%d.%d" % (
        k >> 8 & 0xff, k & 0xff, j % 250), "in_port": j // 250 + 1},
        "actions": [{"action_type": "output", "port": 1}]} for j in range(1000)]
    c.request("POST", "/api/kytos/flow_manager/v2/flows/" + dpid(k % 100),
              json.dumps({"flows": flows}), {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    return r.status
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    codes = list(ex.map(post, range(1000)))
bad = [c for c in codes if c != 202]
if bad:
    print(f"({len(bad)} of 1000 POSTs not 202: {sorted(set(bad))})")
PY
t1=$(date +%s%N)
wait_ge 'ofcd_flows{state="installed"}' 1000000 180
t2=$(date +%s%N)
r5=$(rss_kb)
db_kb=$(du -sk "$work/var" | awk '{ print $1 }')
# All 1,000,000 back through stored_flows, streamed: RSS sampled meanwhile.
peak=$r5
curl -s "$API/api/kytos/flow_manager/v2/stored_flows" | wc -c >"$work/all.size" &
gpid=$!
tg0=$(date +%s%N)
while kill -0 $gpid 2>/dev/null; do
    v=$(rss_kb)
    [ "$v" -gt "$peak" ] && peak=$v
    sleep 0.1
done
tg1=$(date +%s%N)
kill -INT "${pids[-1]}" 2>/dev/null
wait "${pids[-1]}" 2>/dev/null
unset 'pids[-1]'
stop
printf '%-44s %12s\n' "what" "bytes each"
printf '%-44s %12s\n' "idle connection (TCP up, no HELLO; $NIDLE)" "$(per "$r0" "$r1" $NIDLE)"
printf '%-44s %12s\n' "established switch ($NSW emulated)" "$(per "$r2" "$r3" $NSW)"
printf '%-44s %12s\n' "stored, installed flow (1,000,000)" "$(per "$r4" "$r5" 1000000)"
printf '%-44s %12s\n' "  and in the LMDB store on disk" "$(python3 -c "print(f'{$db_kb * 1024 / 1e6:.0f}')")"
echo "RSS: $((r0 / 1024)) MiB at start, $((r3 / 1024)) MiB with $NSW switches," \
     "$((r5 / 1024)) MiB with 1,000,000 flows on 100 switches"
python3 -c "print(f'1,000,000 flows: accepted in {($t1 - $t0) / 1e9:.1f} s, all installed after {($t2 - $t0) / 1e9:.1f} s')"
python3 -c "print(f'GET stored_flows of all of them (streamed): {$(cat "$work/all.size") / 1e6:.0f} MB in {($tg1 - $tg0) / 1e9:.1f} s, RSS +{($peak - $r5) / 1024:.0f} MiB meanwhile')"

echo
echo "== echo RTT of 100 good switches, alone and next to the hostile peers (3 runs each) =="
start "$work/iso.log"
summ() {
    python3 - "$@" <<'PY'
import json, statistics, sys
rs = [json.load(open(f)) for f in sys.argv[1:]]
med = lambda k: statistics.median(r["times_us"]["echo_rtt"][k] / 1000 for r in rs)
disc = sum(r["disconnects"]["total"] for r in rs)
print(f"{med('p50'):.2f} {med('p99'):.2f} {med('max'):.2f} {disc}")
PY
}
# Each run: the good switches connect, then (after 2 s) the peers attack for
# 10 s; the switches' echo RTT is measured over the attack's 10 s (the
# emulator runs 12 s and its first 2 s are before the attack, alone).
for i in 1 2 3; do
    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 50000000 --duration 10 --quiet --json "$OUT/iso_alone_$i.json" \
        >/dev/null 2>&1
    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 50000000 --duration 12 --quiet --json "$OUT/iso_hostile_$i.json" \
        >/dev/null 2>&1 &
    epid=$!
    sleep 2
    a=(--duration 10 --bind $ATTACKER)
    $PEER echo-flood --conns 8 --rcvbuf 1024 "${a[@]}" >"$work/p1_$i.out" 2>&1 & pids+=($!)
    $PEER silent --conns 2000 "${a[@]}" >"$work/p2_$i.out" 2>&1 & pids+=($!)
    $PEER hello-flood --conns 8 "${a[@]}" >"$work/p3_$i.out" 2>&1 & pids+=($!)
    $PEER port-flood --conns 1 --dpid beef "${a[@]}" >"$work/p4_$i.out" 2>&1 & pids+=($!)
    wait "$epid"
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    pids=()
done
stop
read -r a50 a99 amax adisc < <(summ "$OUT"/iso_alone_?.json)
read -r h50 h99 hmax hdisc < <(summ "$OUT"/iso_hostile_?.json)
printf '%-30s %10s %10s %10s %12s\n' case echo_p50_ms echo_p99_ms echo_max_ms disconnects
printf '%-30s %10s %10s %10s %12s\n' "alone" "$a50" "$a99" "$amax" "$adisc"
printf '%-30s %10s %10s %10s %12s\n' "next to the hostile peers" "$h50" "$h99" "$hmax" "$hdisc"
python3 - "$OUT/isolation.json" "$r0" "$r1" "$r2" "$r3" "$r4" "$r5" "$a50" "$a99" "$h50" "$h99" \
    "$adisc" "$hdisc" "$((peak - r5))" <<'PY'
import json, sys
a = sys.argv[2:]
k = [int(x) for x in a[:6]]
json.dump({"bytes_per_idle_conn": (k[1] - k[0]) * 1024 / 5000,
           "bytes_per_switch": (k[3] - k[2]) * 1024 / 10000,
           "bytes_per_flow": (k[5] - k[4]) * 1024 / 1e6,
           "rss_mib_10000_switches": k[3] / 1024, "rss_mib_1m_flows": k[5] / 1024,
           "echo_alone_p50_ms": float(a[6]), "echo_alone_p99_ms": float(a[7]),
           "echo_hostile_p50_ms": float(a[8]), "echo_hostile_p99_ms": float(a[9]),
           "disconnects_alone": int(a[10]), "disconnects_hostile": int(a[11]),
           "stored_flows_1m_rss_growth_mib": int(a[12]) / 1024},
          open(sys.argv[1], "w"), indent=1)
PY
echo "(JSON in $OUT/isolation.json; attackers from $ATTACKER, the good switches from 10.66.0.1)"
