#!/usr/bin/env bash
# Port types (issue 13): the same loads on ofcd's default tap port and on
# net_af_packet bound to a veth whose peer sits in a namespace of this
# bench's own, the emulator (and the kernel-socket peer, ovs-testcontroller)
# on the far side of each: on the host for the tap, inside the namespace
# for the veth, where ovs-testcontroller listens on the namespace's
# loopback; then net_af_xdp on the same veth where it comes up (an XDP
# socket in the veth's generic mode; its far side and peer are af_packet's).
# Per port and controller:
#   - packet_in responses/s: 16 switches, window 64, 3 s, median of RUNS runs (default 3);
#   - the controller's CPU per packet_in response over those runs, and the
#     kernel's share of it (what the port itself costs);
#   - echo RTT p50/p99 of 100 idle switches echoing every 100 ms, alone and
#     next to 100 switches flooding packet_ins (window 64). Their connects
#     are spread over 100 ms (--connect-rate 1000), so their echoes are too,
#     as real switches' are; bench-quick's echo figure keeps them in phase
#     (100 echoes in the same millisecond), which measures a burst's drain.
# The veth peer's TX checksum offload is turned off (ethtool -K eth0 tx off):
# with it on, the kernel leaves TCP checksums partial on a veth, which
# ofcd counts and drops as bad (tcp drop_bad_cksum) since DPDK's af_packet
# driver does not say which frames the kernel marked so.
# The af_packet port gets rings of 8,192 frames (framecnt; DPDK's default is
# 512, which a few connections' windows overflow: drops, retransmissions),
# as the tap's kernel side gets a queue of 10,000.
# Writes OUT_DIR/ports.json. Prints, never asserts. Needs root.
#
# usage: run_bench_ports.sh OFCD_BINARY CONFIG_FILE EMULATOR OUT_DIR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=$4
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # wait_for_line
. "$here/bench_lib.sh"              # bench_veth_ns, emu_fig, median
RUNS=${RUNS:-3}
NS=ofcd-bench-ns
VETH=ofcd-bv0
work=$(mktemp -d /tmp/ofcd-bench-ports.XXXXXX)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null && timeout 5 tail -s 0.05 --pid="$p" -f /dev/null
        kill -KILL "$p" 2>/dev/null
    done
    ip netns del "$NS" 2>/dev/null
    ip link del "$VETH" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
for t in ethtool ovs-testcontroller python3; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done

# The namespace and its veth: ofcd's af_packet port on the host end.
bench_veth_ns "$NS" "$VETH" || { echo "cannot set up namespace $NS and veth $VETH"; exit 1; }

# loads NAME CONTROLLER CPID PREFIX...: the three loads, the emulator run
# under PREFIX (e.g. ip netns exec NS); prints "pin_s echo_p50 echo_p99
# flood_p50 flood_p99 disconnects cpu_us kernel_pct": the last two are the
# controller's (process CPID) CPU per packet_in response over the packet_in
# runs and the kernel's share of it, what bounds the port when the
# controller's own work is small.
loads() {
    local name=$1 ctl=$2 cpid=$3 v=() i fpid c0 c1 n=0
    shift 3
    read -r -a c0 < <(cpu_ticks "$cpid")
    for i in $(seq $RUNS); do
        "$@" "$EMU" --controller "$ctl" --switches 16 --ports 4 --mode throughput --window 64 \
            --connect-rate 0 --dpid-base $((6000000 + i * 100)) --duration 3 --quiet \
            --json "$OUT/ports_${name}_pin_$i.json" >/dev/null 2>&1
        v+=("$(emu_fig "$OUT/ports_${name}_pin_$i.json" responses_s)")
        n=$(awk -v a="$n" -v b="$(emu_fig "$OUT/ports_${name}_pin_$i.json" responses)" \
            'BEGIN { printf "%.0f", a + b }')
    done
    read -r -a c1 < <(cpu_ticks "$cpid")
    "$@" "$EMU" --controller "$ctl" --switches 100 --connect-rate 1000 --echo-interval 100 \
        --dpid-base 7000000 --duration 5 --quiet --json "$OUT/ports_${name}_echo.json" >/dev/null 2>&1
    "$@" "$EMU" --controller "$ctl" --switches 100 --ports 4 --mode throughput --window 64 \
        --connect-rate 0 --echo-interval 0 --dpid-base 8000000 --duration 7 --quiet \
        --json "$OUT/ports_${name}_flood.json" >/dev/null 2>&1 &
    fpid=$!
    sleep 1
    "$@" "$EMU" --controller "$ctl" --switches 100 --connect-rate 1000 --echo-interval 100 \
        --dpid-base 9000000 --duration 5 --quiet --json "$OUT/ports_${name}_echo_flood.json" \
        >/dev/null 2>&1
    wait "$fpid"
    echo "$(median "${v[@]}")" \
        "$(emu_fig "$OUT/ports_${name}_echo.json" echo_p50_ms)" \
        "$(emu_fig "$OUT/ports_${name}_echo.json" echo_p99_ms)" \
        "$(emu_fig "$OUT/ports_${name}_echo_flood.json" echo_p50_ms)" \
        "$(emu_fig "$OUT/ports_${name}_echo_flood.json" echo_p99_ms)" \
        "$(emu_fig "$OUT/ports_${name}_echo_flood.json" disconnects)" \
        "$(awk -v u=$((c1[0] - c0[0])) -v s=$((c1[1] - c0[1])) -v n="$n" -v hz="$(getconf CLK_TCK)" \
            'BEGIN { if (n > 0 && u + s > 0) printf "%.3f %.1f", (u + s) / hz * 1e6 / n, 100 * s / (u + s);
                     else printf "nan nan" }')"
}

# ofcd_try NAME ARGS...: start ofcd with the learning switch on the port ARGS
# give; 1 (its log's tail printed) when it did not come up.
ofcd_try() {
    local log="$work/ofcd_$1.log"
    shift
    "$OFCD" --config "$CONF" --app.data_dir="$work/var_$RANDOM" --app.stats_log_interval_s=0 --apps.topology=false \
        --apps.l2_learning=true "$@" >"$log" 2>&1 &
    opid=$!
    pids+=($opid)
    wait_for_line "$log" 'ofcd ready|ERROR' 60 >/dev/null
    grep -q "ofcd ready" "$log" || { tail -5 "$log"; return 1; }
}
# ofcd_on NAME ARGS...: the same, and the bench stops when it did not come up.
ofcd_on() { ofcd_try "$@" || { echo "ofcd did not start"; exit 1; }; }
ofcd_off() {
    kill -TERM "$opid" 2>/dev/null
    timeout 10 tail -s 0.05 --pid="$opid" -f /dev/null
}
# testctl_on PREFIX...: ovs-testcontroller on 127.0.0.1:16653 under PREFIX.
testctl_on() {
    mkdir -p /var/run/openvswitch
    "$@" ovs-testcontroller ptcp:16653:127.0.0.1 >"$work/testctl.log" 2>&1 &
    tpid=$!
    pids+=($tpid)
    for _ in $(seq 50); do
        "$@" bash -c 'exec 3<>/dev/tcp/127.0.0.1/16653' 2>/dev/null && break
        sleep 0.1
    done
}

echo "== port types: the same loads on the tap, and on net_af_packet and net_af_xdp over a veth =="
ofcd_on tap
read -r -a tap_ofcd < <(loads tap_ofcd 10.66.0.2:6653 "$opid" env)
ofcd_off
testctl_on env
read -r -a tap_peer < <(loads tap_testctl 127.0.0.1:16653 "$tpid" env)
kill -TERM "$tpid" 2>/dev/null
wait "$tpid" 2>/dev/null

ofcd_on af_packet --eal.args="--no-huge -m 512 --no-pci --vdev=net_af_packet0,iface=$VETH,framecnt=8192 --file-prefix=ofcd-bench-af" \
    --net.address=10.67.0.2/24 --net.configure_kernel=false
read -r -a af_ofcd < <(loads af_ofcd 10.67.0.2:6653 "$opid" ip netns exec "$NS")
ofcd_off
testctl_on ip netns exec "$NS"
read -r -a af_peer < <(loads af_testctl 127.0.0.1:16653 "$tpid" ip netns exec "$NS")
kill -TERM "$tpid" 2>/dev/null
wait "$tpid" 2>/dev/null

# net_af_xdp on the same veth, where the kernel and DPDK allow it (an XDP
# socket in the veth's generic mode): the far side, and so the peer, are
# af_packet's.
xdp_ofcd=()
if ofcd_try af_xdp --eal.args="--no-huge -m 512 --no-pci --vdev=net_af_xdp0,iface=$VETH --file-prefix=ofcd-bench-xdp" \
    --net.address=10.67.0.2/24 --net.configure_kernel=false; then
    read -r -a xdp_ofcd < <(loads xdp_ofcd 10.67.0.2:6653 "$opid" ip netns exec "$NS")
else
    echo "(net_af_xdp did not come up on $VETH: its row is left empty)"
fi
ofcd_off

python3 - "$OUT/ports.json" "${tap_ofcd[*]}" "${tap_peer[*]}" "${af_ofcd[*]}" "${af_peer[*]}" \
    "${xdp_ofcd[*]}" <<'PY'
import json, math, sys
keys = ["packet_in_responses_s", "echo_p50_ms", "echo_p99_ms", "echo_p50_ms_next_to_flood",
        "echo_p99_ms_next_to_flood", "echo_disconnects_next_to_flood", "cpu_us_per_response",
        "kernel_cpu_pct"]
rows = {}
for name, text in zip(["tap ofcd", "tap ovs-testcontroller", "af_packet ofcd",
                       "af_packet ovs-testcontroller", "af_xdp ofcd"], sys.argv[2:]):
    vals = [float(x) for x in text.split()] if text.split() else [float("nan")] * len(keys)
    rows[name] = dict(zip(keys, vals))
print(f"{'port, controller':<30} {'pin/s':>10} {'echo p50':>9} {'p99':>7} "
      f"{'flood p50':>10} {'p99':>7} {'disc':>5} {'us/resp':>8} {'kernel':>7}")
for name, r in rows.items():
    print(f"{name:<30} {r['packet_in_responses_s']:>10,.0f} {r['echo_p50_ms']:>9.2f} "
          f"{r['echo_p99_ms']:>7.2f} {r['echo_p50_ms_next_to_flood']:>10.2f} "
          f"{r['echo_p99_ms_next_to_flood']:>7.2f} {r['echo_disconnects_next_to_flood']:>5.0f} "
          f"{r['cpu_us_per_response']:>8.2f} {r['kernel_cpu_pct']:>6.0f}%")
for port, peer in [("tap", "tap"), ("af_packet", "af_packet"), ("af_xdp", "af_packet")]:
    o, p = rows[f"{port} ofcd"], rows[f"{peer} ovs-testcontroller"]
    if p["packet_in_responses_s"] and not math.isnan(o["packet_in_responses_s"]):
        print(f"{port}: ofcd / ovs-testcontroller packet_in responses: "
              f"{o['packet_in_responses_s'] / p['packet_in_responses_s']:.1f}x")
print("(echo times in ms; nan: not one echo answered in the run. us/resp: the controller's CPU,")
print(" user + system, per packet_in response over the packet_in runs; kernel: its system share)")
json.dump(rows, open(sys.argv[1], "w"), indent=1)
PY
