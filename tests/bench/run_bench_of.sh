#!/usr/bin/env bash
# OpenFlow channel bench: the switch emulator (tests/emu)
# against ofcd on its tap. Handshake time for N = 100 and 1000 switches; the
# echo RTT idle switches see alone and next to a packet_in/flow_mod flood on
# other switches; packet_in responses/s (cbench-like) for ofcd's learning
# switch and for ovs-testcontroller on the same load. Prints, never asserts;
# bounded (about two minutes). Needs root.
#
# usage: run_bench_of.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-of.XXXXXX)}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"
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

# All the emulated switches come from one address (the kernel side of the
# tap), as a lab's do: the shipped admission takes them all (pending
# connections are bounded by what they hold, not by a count per address).
"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
    >"$work/ofcd.log" 2>&1 &
opid=$!
timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$work/ofcd.log"
grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }

echo "== OpenFlow channel: ofswitch-emu against ofcd at 10.66.0.2:6653 =="
printf '%-8s %12s %12s %12s %12s %12s %10s\n' switches hs_p50_ms hs_p99_ms echo_p50_ms \
    echo_p99_ms echo_max_ms disconnects
for n in 100 1000; do
    bench_handshake "$EMU" 10.66.0.2:6653 "$n" "$OUT/of_emu_$n.json"
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
echo "(each run: all switches connect at once, echo every 1 s from every switch, 10 s)"
"$EMU" --controller 10.66.0.2:6653 --switches 10000 --connect-rate 2000 --echo-interval 5000 \
    --dpid-base 20000000 --duration 15 --quiet --json "$OUT/of_emu_10000.json" \
    >"$work/emu_10000.out" 2>&1
python3 - "$OUT/of_emu_10000.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["times_us"]
print(f'10000 switches at 2000 connects/s, 15 s: {r["switches"]["handshaked_at_end"]} up at the '
      f'end, handshake p50/p99 {t["handshake"]["p50"] / 1000:.2f}/{t["handshake"]["p99"] / 1000:.2f}'
      f' ms, echo RTT p50/p99 {t["echo_rtt"]["p50"] / 1000:.2f}/{t["echo_rtt"]["p99"] / 1000:.2f}'
      f' ms, {r["disconnects"]["total"]} disconnects')
PY

summ() {   # summ JSON: responses/s, packet_in latency p50/p99 ms, echo p50/p99 ms, flow_mods/s
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t, p, f = r["times_us"], r["packet_in"], r["flow_mods"]
d = r["duration_s"] or 1
print(f'{p.get("responses", 0) / d:.0f} {t["packet_in_latency"]["p50"] / 1000:.2f} '
      f'{t["packet_in_latency"]["p99"] / 1000:.2f} {t["echo_rtt"]["p50"] / 1000:.2f} '
      f'{t["echo_rtt"]["p99"] / 1000:.2f} {f.get("received", 0) / d:.0f} '
      f'{r["disconnects"]["total"]}')
PY
}

# ofcd again, now with the learning switch: every packet_in is answered, and
# once hosts are learnt each answer is a FLOW_MOD (a flow_mod flood).
kill -TERM "$opid"
timeout 5 tail -s 0.05 --pid="$opid" -f /dev/null
"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
    --apps.l2_learning=true >"$work/ofcd2.log" 2>&1 &
opid=$!
timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$work/ofcd2.log"

echo
echo "== echo RTT of 100 idle switches, alone and next to 100 switches flooding packet_ins =="
bench_echo_flood "$EMU" 10.66.0.2:6653 "$OUT" of
read -r _ _ _ ea50 ea99 _ eadisc < <(summ "$OUT/of_echo_alone.json")
read -r fresp _ _ _ _ ffm fdisc < <(summ "$OUT/of_flood.json")
read -r _ _ _ ef50 ef99 _ efdisc < <(summ "$OUT/of_echo_flood.json")
printf '%-34s %10s %10s %12s\n' case echo_p50_ms echo_p99_ms disconnects
printf '%-34s %10s %10s %12s\n' "idle, alone" "$ea50" "$ea99" "$eadisc"
printf '%-34s %10s %10s %12s\n' "idle, next to the flood" "$ef50" "$ef99" "$efdisc"
echo "(the flood: 100 switches x window 64 packet_ins, answered by ofcd at $fresp/s," \
     "$ffm flow_mods/s received, $fdisc disconnects)"

echo
echo "== packet_in responses/s, cbench-like (16 switches, 4 ports, window 64, 10 s) =="
printf '%-22s %12s %12s %12s %10s\n' controller responses/s lat_p50_ms lat_p99_ms disconnects
"$EMU" --controller 10.66.0.2:6653 --switches 16 --ports 4 --mode throughput --window 64 \
    --connect-rate 0 --dpid-base 6000000 --duration 10 --quiet --json "$OUT/of_pin_ofcd.json" \
    >/dev/null 2>&1
read -r ro l50 l99 _ _ _ dd < <(summ "$OUT/of_pin_ofcd.json")
printf '%-22s %12s %12s %12s %10s\n' ofcd "$ro" "$l50" "$l99" "$dd"
if command -v ovs-testcontroller >/dev/null; then
    # The peer: Open vSwitch's C learning-switch controller, on loopback
    # (it accepts at most 16 switches).
    mkdir -p /var/run/openvswitch          # its control socket lives there
    ovs-testcontroller ptcp:16653:127.0.0.1 >"$work/testctl.log" 2>&1 &
    tpid=$!
    sleep 0.5
    "$EMU" --controller 127.0.0.1:16653 --switches 16 --ports 4 --mode throughput --window 64 \
        --connect-rate 0 --dpid-base 6000000 --duration 10 --quiet \
        --json "$OUT/of_pin_testctl.json" >/dev/null 2>&1
    kill -TERM "$tpid" 2>/dev/null
    wait "$tpid" 2>/dev/null
    read -r rt t50 t99 _ _ _ td < <(summ "$OUT/of_pin_testctl.json")
    printf '%-22s %12s %12s %12s %10s\n' ovs-testcontroller "$rt" "$t50" "$t99" "$td"
    python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'ratio ofcd/ovs-testcontroller responses/s: {a/b:.2f}' if b else 'ratio: -')" "$ro" "$rt"
else
    echo "ovs-testcontroller not installed: no peer figure"
fi
echo "(JSON reports in $OUT)"
