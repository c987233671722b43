#!/usr/bin/env bash
# make bench-quick: the headline figures in about two minutes, each the
# median of 3 short runs next to its peer's median on the same load in the
# same run, so a change can be checked before the full `make bench`:
#   - packet_in responses/s (16 emulated switches, window 64) answered by
#     ofcd's learning switch and by ovs-testcontroller;
#   - one-flow REST POSTs/s (wrk, 64 connections, a new flow per request on
#     100 emulated switches): ofcd (durable before 202, and again with
#     flow_manager.durability = async, and with store.journal = true) and os-ken
#     (osken/osken_rest_peer.py: sends the FLOW_MOD, stores nothing);
#   - the echo RTT p99 of 100 idle switches next to a packet_in flood;
#   - packet_in responses/s again with ofcd on net_af_packet over a veth
#     into a namespace (the emulator and ovs-testcontroller inside it), as
#     tests/bench/run_bench_ports.sh does;
#   - batched installs: 200,000 flows in POSTs of 1,000 (run_bench_batch.sh),
#     flows/s accepted and heap bytes per flow (no peer).
# Writes OUT_DIR/quick.json; when BASELINE (a previous quick.json) exists,
# prints each figure's change against it, then replaces it. Prints, never
# asserts. Needs root (ofcd's tap).
#
# usage: run_bench_quick.sh OFCD_BINARY CONFIG_FILE EMULATOR OUT_DIR [BASELINE]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=$4
BASELINE=${5:-}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # wait_for_line
. "$here/bench_lib.sh"              # bench_veth_ns, emu_fig, median
RUNS=3
work=$(mktemp -d /tmp/ofcd-bench-quick.XXXXXX)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null && timeout 5 tail -s 0.05 --pid="$p" -f /dev/null
        kill -KILL "$p" 2>/dev/null
    done
    ip netns del ofcd-quick-ns 2>/dev/null
    ip link del ofcd-qv0 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
for t in wrk python3; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done

# pin_runs CONTROLLER NAME [PREFIX...]: packet_in responses/s, RUNS times,
# the emulator run under PREFIX (e.g. ip netns exec NS); the median.
pin_runs() {
    local v=() i ctl=$1 name=$2
    shift 2
    for i in $(seq $RUNS); do
        "$@" "$EMU" --controller "$ctl" --switches 16 --ports 4 --mode throughput --window 64 \
            --connect-rate 0 --dpid-base $((6000000 + i * 100)) --duration 3 --quiet \
            --json "$OUT/quick_pin_${name}_$i.json" >/dev/null 2>&1
        v+=("$(emu_fig "$OUT/quick_pin_${name}_$i.json" responses_s)")
    done
    median "${v[@]}"
}

# rest_runs API NAME: wrk one-flow POSTs/s with 100 switches connected to
# the controller at CTL, RUNS times; prints "median_req_s median_p99_ms non2xx".
rest_runs() {
    local api=$1 ctl=$2 name=$3 rs=() ps=() bad=0 i epid
    "$EMU" --controller "$ctl" --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 65536 --duration $((RUNS * 5 + 6)) --quiet >/dev/null 2>&1 &
    epid=$!
    # Until all 100 are usable: a probe POST to the last one answers 202.
    for _ in $(seq 100); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
            -d '{"flows": [{"priority": 1, "match": {"in_port": 1}, "actions": []}]}' \
            "$api/api/kytos/flow_manager/v2/flows/00:00:00:00:00:01:00:63")" = 202 ] && break
        sleep 0.1
    done
    for i in $(seq $RUNS); do
        wrk -t 2 -c 64 -d 3s --latency -s "$here/wrk_new_flow.lua" "$api" >"$work/wrk_${name}_$i.txt" 2>&1
        rs+=("$(awk '/Requests\/sec/ {print $2}' "$work/wrk_${name}_$i.txt")")
        ps+=("$(python3 -c 'import re,sys
t = open(sys.argv[1]).read()
m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)", t, re.M)
scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
print("%.2f" % (float(m.group(1)) * scale[m.group(2)]) if m else "nan")' \
            "$work/wrk_${name}_$i.txt")")
        n=$(awk '/Non-2xx/ {print $NF}' "$work/wrk_${name}_$i.txt")
        bad=$((bad + ${n:-0}))
    done
    kill -INT "$epid" 2>/dev/null
    wait "$epid" 2>/dev/null
    echo "$(median "${rs[@]}") $(median "${ps[@]}") $bad"
}

# The learning switch answers the packet_ins (as in run_bench_of.sh); the
# flow manager takes the POSTs alongside it.
"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
    --apps.l2_learning=true >"$work/ofcd.log" 2>&1 &
pids+=($!)
wait_for_line "$work/ofcd.log" 'ofcd ready|ERROR' 60
grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }

echo "== bench-quick: medians of $RUNS runs, each next to its peer on the same load =="
pin_ofcd=$(pin_runs 10.66.0.2:6653 ofcd)
pin_peer=
if command -v ovs-testcontroller >/dev/null; then
    mkdir -p /var/run/openvswitch
    ovs-testcontroller ptcp:16653:127.0.0.1 >"$work/testctl.log" 2>&1 &
    tpid=$!
    pids+=($tpid)
    wait_for_line "$work/testctl.log" 'listening|ptcp' 5 >/dev/null 2>&1 || true
    pin_peer=$(pin_runs 127.0.0.1:16653 testctl)
    kill -TERM "$tpid" 2>/dev/null
fi

# Echo p99 of 100 idle switches next to 100 flooding ones (one run of 5 s).
"$EMU" --controller 10.66.0.2:6653 --switches 100 --ports 4 --mode throughput --window 64 \
    --connect-rate 0 --echo-interval 0 --dpid-base 8000000 --duration 7 --quiet \
    --json "$OUT/quick_flood.json" >/dev/null 2>&1 &
fpid=$!
sleep 1
"$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 100 \
    --dpid-base 9000000 --duration 5 --quiet --json "$OUT/quick_echo_flood.json" >/dev/null 2>&1
wait "$fpid"
echo_flood=$(emu_fig "$OUT/quick_echo_flood.json" echo_p99_ms)
echo_disc=$(emu_fig "$OUT/quick_echo_flood.json" disconnects)

read -r rest_ofcd rest_ofcd_p99 rest_ofcd_bad < <(rest_runs http://127.0.0.1:8181 10.66.0.2:6653 ofcd)
rest_peer=
if command -v osken-manager >/dev/null; then
    OSKEN_REST_PORT=18181 osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port 16633 \
        "$here/osken/osken_rest_peer.py" >"$work/osken.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        curl -s -o /dev/null http://127.0.0.1:18181/ && break
        sleep 0.1
    done
    read -r rest_peer rest_peer_p99 rest_peer_bad < <(rest_runs http://127.0.0.1:18181 127.0.0.1:16633 osken)
fi

# The REST and packet_in loads' ofcd makes way for the two that start their own.
kill -TERM "${pids[0]}" 2>/dev/null && timeout 10 tail -s 0.05 --pid="${pids[0]}" -f /dev/null

# The same POSTs with another setting: rest_variant NAME OFCD_ARGS...
# prints "req/s p99" (empty when ofcd did not start). Not in a subshell:
# cleanup must know its ofcd.
rest_variant() {
    local name=$1 vpid
    shift
    "$OFCD" --config "$CONF" --app.data_dir="$work/var_$name" --app.stats_log_interval_s=0 --apps.topology=false \
        "$@" >"$work/ofcd_$name.log" 2>&1 &
    vpid=$!
    pids+=($vpid)
    wait_for_line "$work/ofcd_$name.log" 'ofcd ready|ERROR' 60 >/dev/null
    if grep -q "ofcd ready" "$work/ofcd_$name.log"; then
        rest_runs http://127.0.0.1:8181 10.66.0.2:6653 "ofcd_$name" | cut -d' ' -f1,2
    else
        echo
    fi
    kill -TERM "$vpid" 2>/dev/null && timeout 10 tail -s 0.05 --pid="$vpid" -f /dev/null
}
# flow_manager.durability = async: a 202 once the change is queued, as
# Kytos-ng and os-ken answer (nothing waits for a sync). store.journal: a
# 202 once durable, one journal sync per commit instead of LMDB's two.
rest_variant async --flow_manager.durability=async >"$work/v_async"
rest_variant journal --store.journal=true >"$work/v_journal"
read -r rest_async rest_async_p99 <"$work/v_async"
read -r rest_jnl rest_jnl_p99 <"$work/v_journal"

# packet_in responses/s on net_af_packet over a veth into a namespace.
NS=ofcd-quick-ns
VETH=ofcd-qv0
pin_af= pin_af_peer=
if bench_veth_ns "$NS" "$VETH"; then
    "$OFCD" --config "$CONF" --app.data_dir="$work/var_af" --app.stats_log_interval_s=0 --apps.topology=false \
        --apps.l2_learning=true --net.address=10.67.0.2/24 --net.configure_kernel=false \
        --eal.args="--no-huge -m 512 --no-pci --vdev=net_af_packet0,iface=$VETH,framecnt=8192 --file-prefix=ofcd-quick-af" \
        >"$work/ofcd_af.log" 2>&1 &
    afpid=$!
    pids+=($afpid)
    wait_for_line "$work/ofcd_af.log" 'ofcd ready|ERROR' 60 >/dev/null
    if grep -q "ofcd ready" "$work/ofcd_af.log"; then
        pin_af=$(pin_runs 10.67.0.2:6653 af_ofcd ip netns exec "$NS")
    fi
    kill -TERM "$afpid" 2>/dev/null && timeout 10 tail -s 0.05 --pid="$afpid" -f /dev/null
    if command -v ovs-testcontroller >/dev/null; then
        ip netns exec "$NS" ovs-testcontroller ptcp:16653:127.0.0.1 >"$work/testctl_af.log" 2>&1 &
        tpid=$!
        pids+=($tpid)
        wait_for_line "$work/testctl_af.log" 'listening|ptcp' 5 >/dev/null 2>&1 || true
        pin_af_peer=$(pin_runs 127.0.0.1:16653 af_testctl ip netns exec "$NS")
        kill -TERM "$tpid" 2>/dev/null
    fi
fi
ip netns del "$NS" 2>/dev/null
ip link del "$VETH" 2>/dev/null

# Batched installs: 200,000 flows.
PEER=none FLOWS=200000 "$here/run_bench_batch.sh" "$OFCD" "$CONF" "$EMU" "$work/batch" >"$work/batch.txt" 2>&1
batch_s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["accepted_flows_s"])' \
    "$work/batch/batch.json" 2>/dev/null)
batch_heap=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["heap_bytes_per_flow"])' \
    "$work/batch/batch.json" 2>/dev/null)

python3 - "$OUT/quick.json" "${BASELINE:-}" <<PY
import json, os, sys
def num(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return None if v != v else v      # nan: no echo answered
fig = {
    "packet_in_responses_s": {"ofcd": num("$pin_ofcd"), "ovs-testcontroller": num("${pin_peer:-x}")},
    "rest_post_req_s": {"ofcd": num("$rest_ofcd"), "os-ken": num("${rest_peer:-x}")},
    "rest_post_p99_ms": {"ofcd": num("$rest_ofcd_p99"), "os-ken": num("${rest_peer_p99:-x}")},
    "rest_non_2xx": {"ofcd": num("$rest_ofcd_bad"), "os-ken": num("${rest_peer_bad:-x}")},
    "rest_post_req_s_async": {"ofcd": num("${rest_async:-x}"), "os-ken": num("${rest_peer:-x}")},
    "rest_post_p99_ms_async": {"ofcd": num("${rest_async_p99:-x}"),
                               "os-ken": num("${rest_peer_p99:-x}")},
    "rest_post_req_s_journal": {"ofcd": num("${rest_jnl:-x}"), "os-ken": num("${rest_peer:-x}")},
    "rest_post_p99_ms_journal": {"ofcd": num("${rest_jnl_p99:-x}"),
                                 "os-ken": num("${rest_peer_p99:-x}")},
    "echo_p99_ms_next_to_flood": {"ofcd": num("$echo_flood")},
    "echo_disconnects_next_to_flood": {"ofcd": num("$echo_disc")},
    "af_packet_packet_in_responses_s": {"ofcd": num("${pin_af:-x}"),
                                        "ovs-testcontroller": num("${pin_af_peer:-x}")},
    "batch_accepted_flows_s": {"ofcd": num("${batch_s:-x}")},
    "batch_heap_bytes_per_flow": {"ofcd": num("${batch_heap:-x}")},
}
old = None
if sys.argv[2] and os.path.exists(sys.argv[2]):
    old = json.load(open(sys.argv[2]))
print(f"{'figure':<32} {'ofcd':>12} {'peer':>12} {'ratio':>7} {'ofcd change':>12}")
for k, v in fig.items():
    o = v["ofcd"]
    peer = [x for n, x in v.items() if n != "ofcd"]
    p = peer[0] if peer else None
    ratio = f"{o / p:.2f}" if o is not None and p else "-"
    ch = "-"
    if old and old.get(k, {}).get("ofcd"):
        ch = f"{(o - old[k]['ofcd']) / old[k]['ofcd'] * 100:+.1f}%" if o is not None else "-"
    fmt = lambda x: "-" if x is None else (f"{x:,.0f}" if x >= 100 else f"{x:.2f}")
    print(f"{k:<32} {fmt(o):>12} {fmt(p):>12} {ratio:>7} {ch:>12}")
json.dump(fig, open(sys.argv[1], "w"), indent=1)
if sys.argv[2]:
    json.dump(fig, open(sys.argv[2], "w"), indent=1)
PY
echo "(peers: ovs-testcontroller for packet_ins (on the namespace's loopback for af_packet),"
echo " os-ken for REST POSTs; ofcd's REST answers 202 only once the flow is"
echo " durable (the _journal rows: store.journal = true), but in the _async rows"
echo " (flow_manager.durability = async); os-ken's"
echo " store nothing)"
