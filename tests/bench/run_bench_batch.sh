#!/usr/bin/env bash
# Batched installs (issue 13): FLOWS flows in POSTs of 1,000 flows each
# (8 client connections, keep-alive) spread over 100 emulated switches,
# flow pacing off. Prints, per round: flows/s accepted (every POST answered
# 202, i.e. durable), flows/s confirmed (every flow barrier-confirmed,
# `installed`), ofcd's RSS growth per stored flow and the store's bytes on
# disk per flow; then ofcd is killed (SIGKILL) and started again on its data:
# the seconds until it is ready and until its flow manager holds every flow
# again, and how many acknowledged flows did not come back (0 is the
# promise of a 202). The bodies are made before the clock starts, so the
# client's JSON encoding is not measured. Prints, never asserts. Needs root.
#
#   FLOWS      flows per round (default 1,000,000)
#   ROUNDS     rounds, each on a fresh ofcd (default 1; medians printed)
#   DATA_BASE  directory for ofcd's data dir (default /tmp)
#   PERF=1     perf record -g of ofcd while the POSTs are sent (round 1):
#              report in OUT_DIR/batch_perf.txt
#   OFCD_EXTRA more ofcd arguments
#   PEER       osken (default, when osken-manager is installed) or none: after
#              ofcd's rounds, the same bodies to os-ken's REST peer
#              (osken/osken_rest_peer.py: sends each FLOW_MOD, stores
#              nothing, no barrier) on 100 emulated switches over loopback,
#              PEER_FLOWS flows (default 100,000): its flows/s answered and
#              its CPU per flow, in batch.json as osken_*
#   PORT       tap (default: the emulator on the host, through ofcd's tap) or
#              af_packet: ofcd's port is net_af_packet on a veth whose peer
#              is in a namespace of this bench's own (bench_veth_ns), the
#              emulator in there: what the tap's system call per frame
#              costs a batch (on 2026-12-05 nothing measurable,
#              docs/performance.md).
#
# usage: run_bench_batch.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-batch.XXXXXX)}
mkdir -p "$OUT"
FLOWS=${FLOWS:-1000000}
ROUNDS=${ROUNDS:-1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # wait_for_line, rest_metric
. "$here/bench_lib.sh"              # bench_veth_ns
PORT=${PORT:-tap}
NS=ofcdbatch
VETH=ofcdbatch0
case "$PORT" in
tap)
    port_args=()
    emu_at=()
    CONTROLLER=10.66.0.2:6653 ;;
af_packet)
    bench_veth_ns "$NS" "$VETH" || { echo "cannot set up namespace $NS and veth $VETH" >&2; exit 1; }
    port_args=(--eal.args="--no-huge -m 512 --no-pci --vdev=net_af_packet0,iface=$VETH,framecnt=8192 --file-prefix=ofcd-bench-batch"
               --net.address=10.67.0.2/24 --net.configure_kernel=false)
    emu_at=(ip netns exec "$NS")
    CONTROLLER=10.67.0.2:6653 ;;
*)
    echo "PORT must be tap or af_packet, not $PORT" >&2; exit 2 ;;
esac
work=$(mktemp -d "${DATA_BASE:-/tmp}/ofcd-bench-batch.XXXXXX")
API=http://127.0.0.1:8181
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null && timeout 10 tail -s 0.05 --pid="$p" -f /dev/null
        kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$work"
    if [ "$PORT" = af_packet ]; then
        ip netns del "$NS" 2>/dev/null
        ip link del "$VETH" 2>/dev/null
    fi
}
trap cleanup EXIT
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # utime + stime
anon_kb() { awk '/^RssAnon/ { print $2 }' "/proc/$1/status"; }
# The CPU time (ns, schedstat) of each of PID's threads, summed by thread
# name: "name ns" lines.
thread_cpu_ns() {
    local t
    for t in /proc/"$1"/task/*; do
        printf '%s %s\n' "$(cat "$t/comm" 2>/dev/null)" "$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)"
    done | awk 'NF == 2 { n[$1] += $2 } END { for (k in n) printf "%s %.0f\n", k, n[k] }'
}

# POSTs FLOWS flows in bodies of 1,000 to API's flows/{dpid} for the 100
# switches from dpid 40000000 (8 keep-alive connections); the start and end
# (ns) and the number of POSTs not answered 202 into TIMES. Bodies are
# made before the clock starts.
# usage: send_bodies API FLOWS TIMES
send_bodies() {
    python3 - "$1" 40000000 "$2" "$3" <<'PY'
import concurrent.futures, http.client, json, sys, time
api, base, n, times = sys.argv[1].split("//")[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def dpid(i):
    return ":".join(f"{(base + i) >> s & 0xff:02x}" for s in range(56, -8, -8))
posts = n // 1000
bodies = [json.dumps({"flows": [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.%d.%d.%d" % (
    k >> 8 & 0xff, k & 0xff, j % 250), "in_port": j // 250 + 1},
    "actions": [{"action_type": "output", "port": 1}]} for j in range(1000)]}).encode()
    for k in range(posts)]
conns = 8
def sender(w):
    c = http.client.HTTPConnection(api, timeout=300)
    bad = []
    for k in range(w, posts, conns):
        c.request("POST", "/api/kytos/flow_manager/v2/flows/" + dpid(k % 100), bodies[k],
                  {"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        if r.status != 202:
            bad.append(r.status)
    return bad
t0 = time.time_ns()
with concurrent.futures.ThreadPoolExecutor(conns) as ex:
    bad = sum(ex.map(sender, range(conns)), [])
t1 = time.time_ns()
open(times, "w").write(f"{t0} {t1} {len(bad)}\n")
if bad:
    print(f"({len(bad)} of {posts} POSTs not 202: {sorted(set(bad))})", file=sys.stderr)
PY
}

# One round: prints "accepted_flows_s confirmed_flows_s rss_b_per_flow
# disk_b_per_flow anon_b_per_flow cpu_us_per_flow recover_ready_s recover_all_s
# lost" (anon: RssAnon, the heap; the rest of
# the RSS growth is the store's file pages mapped by LMDB, page cache that
# the kernel may reclaim).
round() {
    local r=$1 opid epid r0 r1 t0 t1 t2 db perfpid=
    rm -rf "$work/var"
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
        --openflow.stats_interval_s=0 --flow_manager.pacing_per_s=0 \
        --flow_manager.consistency=false "${port_args[@]}" ${OFCD_EXTRA:-} >"$work/ofcd.log" 2>&1 &
    opid=$!
    pids+=($opid)
    wait_for_line "$work/ofcd.log" 'ofcd ready|ERROR' 60 >/dev/null
    grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log" >&2; echo "ofcd did not start" >&2; return 1; }
    "${emu_at[@]}" "$EMU" --controller "$CONTROLLER" --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 40000000 --duration 600 --quiet >"$work/emu.out" 2>&1 &
    epid=$!
    pids+=($epid)
    for _ in $(seq 300); do
        [ "$(rest_metric ofcd_switches_up)" = 100 ] && break
        sleep 0.1
    done
    sleep 1                                  # let start-up allocations settle
    r0=$(rss_kb $opid)
    a0=$(anon_kb $opid)
    c0=$(cpu_ticks $opid)
    thread_cpu_ns $opid >"$work/threads0"
    if [ "${PERF:-}" = 1 ] && [ "$r" = 1 ]; then
        perf record ${PERF_ARGS:--g} -p $opid -o "$work/perf.data" >/dev/null 2>&1 &
        perfpid=$!
    fi
    send_bodies "$API" "$FLOWS" "$work/times" || return 1
    [ -n "$perfpid" ] && { kill -INT $perfpid; wait $perfpid 2>/dev/null; }
    for _ in $(seq 1200); do
        [ "$(rest_metric 'ofcd_flows{state="installed"}')" -ge "$FLOWS" ] 2>/dev/null && break
        sleep 0.05
    done
    t2=$(date +%s%N)
    read -r t0 t1 _ <"$work/times"
    r1=$(rss_kb $opid)
    a1=$(anon_kb $opid)
    c1=$(cpu_ticks $opid)
    thread_cpu_ns $opid >"$work/threads1"
    # Each thread's CPU per flow, the round's own line after the figures'.
    awk -v n="$FLOWS" 'NR == FNR { a[$1] = $2; next }
        { d = ($2 - a[$1]) / 1e3 / n; if (d > 0.005) printf "%s=%.2f ", $1, d }
        END { print "" }' "$work/threads0" "$work/threads1" >"$work/threads-r$r"
    db=$(du -sb "$work/var" | awk '{ print $1 }')
    if [ -n "$perfpid" ]; then
        { echo "== by thread"
          perf report -i "$work/perf.data" --no-children -g none --sort comm --stdio 2>/dev/null |
              grep '%' | head -20
          echo "== by thread and library"
          perf report -i "$work/perf.data" --no-children -g none --sort comm,dso --stdio 2>/dev/null |
              grep '%' | head -30
          echo "== by thread and symbol"
          perf report -i "$work/perf.data" --no-children -g none --sort comm,dso,symbol --stdio \
              2>/dev/null | grep '%' | head -80
          echo "== callers (children)"
          perf report -i "$work/perf.data" --children -g none --sort comm,symbol --stdio \
              2>/dev/null | grep '%' | head -80; } >"$OUT/batch_perf.txt"
    fi
    # Recovery: killed as a crash would, started again on the same data.
    kill -KILL $opid 2>/dev/null
    timeout 10 tail -s 0.05 --pid=$opid -f /dev/null
    local k0 k1 k2 held=0
    k0=$(date +%s%N)
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
        --openflow.stats_interval_s=0 --flow_manager.pacing_per_s=0 \
        --flow_manager.consistency=false "${port_args[@]}" ${OFCD_EXTRA:-} >"$work/ofcd2.log" 2>&1 &
    opid=$!
    pids+=($opid)
    wait_for_line "$work/ofcd2.log" 'ofcd ready|ERROR' 300 >/dev/null
    k1=$(date +%s%N)
    for _ in $(seq 3000); do
        held=$(curl -s "$API/metrics" | awk '/^ofcd_flows\{state="(pending|installed)"\}/ { n += $2 } END { print n + 0 }')
        [ "$held" -ge "$FLOWS" ] 2>/dev/null && break
        sleep 0.1
    done
    k2=$(date +%s%N)
    kill -TERM $epid $opid 2>/dev/null
    timeout 30 tail -s 0.05 --pid=$opid -f /dev/null
    python3 -c "
n, t0, t1, t2 = $FLOWS, $t0, $t1, $t2
print(f'{n / ((t1 - t0) / 1e9):.0f} {n / ((t2 - t0) / 1e9):.0f} {($r1 - $r0) * 1024 / n:.0f} {$db / n:.0f} {($a1 - $a0) * 1024 / n:.0f} {($c1 - $c0) * 1e6 / $(getconf CLK_TCK) / n:.2f} {($k1 - $k0) / 1e9:.2f} {($k2 - $k0) / 1e9:.2f} {max(0, n - $held)}')"
}

# The same bodies to os-ken's REST peer: prints "flows_s cpu_us_per_flow".
peer_round() {
    local n=$1 kpid epid c0 c1 t0 t1 up=0
    OSKEN_REST_PORT=18181 osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port 16633 \
        "$here/osken/osken_rest_peer.py" >"$work/osken.log" 2>&1 &
    kpid=$!
    pids+=($kpid)
    "$EMU" --controller 127.0.0.1:16633 --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 40000000 --duration 600 --quiet >"$work/emu-osken.out" 2>&1 &
    epid=$!
    pids+=($epid)
    for _ in $(seq 600); do
        up=$(curl -s http://127.0.0.1:18181/peer/datapaths 2>/dev/null |
             python3 -c 'import json, sys; print(json.load(sys.stdin)["up"])' 2>/dev/null)
        [ "${up:-0}" = 100 ] && break
        sleep 0.1
    done
    [ "${up:-0}" = 100 ] || { echo "os-ken knew ${up:-0} of 100 switches" >&2; return 1; }
    c0=$(cpu_ticks $kpid)
    send_bodies http://127.0.0.1:18181 "$n" "$work/times-osken" || return 1
    c1=$(cpu_ticks $kpid)
    read -r t0 t1 bad <"$work/times-osken"
    [ "$bad" = 0 ] || { echo "os-ken did not answer $bad POSTs 202" >&2; return 1; }
    kill -TERM $epid $kpid 2>/dev/null
    timeout 10 tail -s 0.05 --pid=$kpid -f /dev/null
    python3 -c "print(f'{$n / (($t1 - $t0) / 1e9):.0f} {($c1 - $c0) * 1e6 / $(getconf CLK_TCK) / $n:.2f}')"
}

echo "== batched installs: $FLOWS flows, POSTs of 1,000 flows, 100 emulated switches, port $PORT, $ROUNDS round(s) =="
: >"$work/rounds"
for r in $(seq "$ROUNDS"); do
    line=$(round "$r") || { echo "round $r failed"; exit 1; }
    echo "round $r: accepted $(echo $line | cut -d' ' -f1) flows/s, confirmed $(echo $line | cut -d' ' -f2) flows/s," \
         "RSS $(echo $line | cut -d' ' -f3) B/flow (heap $(echo $line | cut -d' ' -f5)), store $(echo $line | cut -d' ' -f4) B/flow on disk," \
         "ofcd CPU $(echo $line | cut -d' ' -f6) us/flow;" \
         "after kill -9: ready in $(echo $line | cut -d' ' -f7) s, every flow back in $(echo $line | cut -d' ' -f8) s," \
         "$(echo $line | cut -d' ' -f9) acknowledged flows lost"
    echo "  its CPU by thread, us/flow: $(cat "$work/threads-r$r")"
    echo "$line" >>"$work/rounds"
done
PEER=${PEER:-osken}
PEER_FLOWS=${PEER_FLOWS:-100000}
peer=""
if [ "$PEER" = osken ] && command -v osken-manager >/dev/null; then
    peer=$(peer_round "$PEER_FLOWS") && echo "os-ken (sends each FLOW_MOD, stores nothing, no barrier), $PEER_FLOWS flows:" \
        "answered $(echo $peer | cut -d' ' -f1) flows/s, its CPU $(echo $peer | cut -d' ' -f2) us/flow" ||
        { echo "os-ken's round failed (see above)"; peer=""; }
fi
python3 - "$work/rounds" "$OUT/batch.json" "$FLOWS" "$PORT" "$PEER_FLOWS $peer" "$work" <<'PY'
import glob, json, statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
med = [statistics.median(c) for c in zip(*rows)]
keys = ["accepted_flows_s", "confirmed_flows_s", "rss_bytes_per_flow", "disk_bytes_per_flow", "heap_bytes_per_flow", "ofcd_cpu_us_per_flow", "recover_ready_s", "recover_all_s", "lost_flows"]
fig = dict(zip(keys, med), flows=int(sys.argv[3]), rounds=len(rows), port=sys.argv[4])
peer = sys.argv[5].split()
if len(peer) == 3:
    fig.update(osken_flows=int(peer[0]), osken_flows_s=float(peer[1]),
               osken_cpu_us_per_flow=float(peer[2]))
by = {}
for f in glob.glob(sys.argv[6] + "/threads-r*"):
    for kv in open(f).read().split():
        k, v = kv.split("=")
        by.setdefault(k, []).append(float(v))
if by:
    fig["thread_cpu_us_per_flow"] = {k: statistics.median(v) for k, v in sorted(by.items())}
json.dump(fig, open(sys.argv[2], "w"), indent=1)
print(f"median: accepted {med[0]:,.0f} flows/s, confirmed {med[1]:,.0f} flows/s, "
      f"RSS {med[2]:.0f} B/flow (heap {med[4]:.0f}), store {med[3]:.0f} B/flow on disk, "
      f"ofcd CPU {med[5]:.2f} us/flow; after kill -9 ready in {med[6]:.2f} s, every flow "
      f"back in {med[7]:.2f} s, {med[8]:.0f} lost")
PY
