# What several benches share (sourced, not run): the emulator loads two
# benches give two controllers (ofcd in run_bench_of.sh, os-ken in
# run_bench_osken.sh), defined once so both get exactly the same load; and
# the namespace and veth of the net_af_packet benches; reading the
# emulator's reports.

# bench_handshake EMU CONTROLLER N JSON: N switches connect at once, each
# echoes every second, for 10 s.
bench_handshake() {
    "$1" --controller "$2" --switches "$3" --connect-rate 0 --echo-interval 1000 \
        --dpid-base $(($3 * 100000)) --duration 10 --quiet --json "$4" >/dev/null 2>&1
}

# bench_echo_flood EMU CONTROLLER OUT PREFIX: the echo RTT of 100 idle
# switches alone (PREFIX_echo_alone.json), then next to 100 switches
# flooding packet_ins with a window of 64 (PREFIX_flood.json,
# PREFIX_echo_flood.json). The flood gets a second's head start.
bench_echo_flood() {
    local emu=$1 ctl=$2 out=$3 p=$4 fpid
    "$emu" --controller "$ctl" --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 7000000 --duration 10 --quiet --json "$out/${p}_echo_alone.json" >/dev/null 2>&1
    "$emu" --controller "$ctl" --switches 100 --ports 4 --mode throughput --window 64 \
        --connect-rate 0 --echo-interval 0 --dpid-base 8000000 --duration 12 --quiet \
        --json "$out/${p}_flood.json" >/dev/null 2>&1 &
    fpid=$!
    sleep 1
    "$emu" --controller "$ctl" --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 9000000 --duration 10 --quiet --json "$out/${p}_echo_flood.json" >/dev/null 2>&1
    wait "$fpid"
}

# bench_veth_ns NS VETH: a namespace NS whose eth0 (10.67.0.1/24, TX
# checksum offload off: a veth would leave TCP checksums partial, which
# ofcd drops as bad) is the peer of VETH on the host, up, for ofcd's
# net_af_packet port at 10.67.0.2. Anything of those names is removed
# first. 0, or 1 when a step failed (the caller says what it skips).
bench_veth_ns() {
    ip netns del "$1" 2>/dev/null
    ip link del "$2" 2>/dev/null
    command -v ethtool >/dev/null && ip netns add "$1" &&
        ip link add "$2" type veth peer name eth0 netns "$1" && ip link set "$2" up &&
        ip -n "$1" link set lo up && ip -n "$1" addr add 10.67.0.1/24 dev eth0 &&
        ip -n "$1" link set eth0 up && ip netns exec "$1" ethtool -K eth0 tx off >/dev/null
}

# emu_fig JSON FIELD: one figure of an emulator report (--json): responses
# (packet_in responses), responses_s (per second), echo_p50_ms, echo_p99_ms
# (nan when no echo was answered at all), disconnects.
emu_fig() {
    python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["duration_s"] or 1
e = r["times_us"]["echo_rtt"]
none = float("nan") if not e["count"] else None    # no echo answered at all
v = {"responses": r["packet_in"].get("responses", 0),
     "responses_s": r["packet_in"].get("responses", 0) / d,
     "echo_p50_ms": none or e["p50"] / 1000, "echo_p99_ms": none or e["p99"] / 1000,
     "disconnects": r["disconnects"]["total"]}[sys.argv[2]]
print(f"{v:.3f}")
PY
}
# median V...: the median of numbers (the lower middle of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# cpu_ticks PID: user and system clock ticks PID has used, "USER SYS".
cpu_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat" 2>/dev/null || echo "0 0"; }

# bench_start LOG ADDR... -- ARGS...: ofcd ($OFCD) on the shipped config
# ($CONF) plus ARGS, data in $work/var, its pid in $opid; once it is ready
# the tap's kernel side gets each ADDR (attackers' addresses of their own).
# Exits the bench when ofcd does not start.
bench_start() {
    local log=$1 a
    shift
    local addrs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do addrs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false "$@" \
        >"$log" 2>&1 &
    opid=$!
    timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$log"
    grep -q "ofcd ready" "$log" || { tail "$log"; echo "ofcd did not start"; exit 1; }
    for a in "${addrs[@]}"; do ip addr add "$a/24" dev ofc0 2>/dev/null; done
}

# bench_stop: SIGTERM to $opid (SIGKILL after 10 s), $opid cleared.
bench_stop() {
    if [ -n "${opid:-}" ] && kill -0 "$opid" 2>/dev/null; then
        kill -TERM "$opid"
        timeout 10 tail -s 0.05 --pid="$opid" -f /dev/null || kill -KILL "$opid"
    fi
    opid=
}
