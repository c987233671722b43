#!/usr/bin/env bash
# TCP bench: tcp-bench against (a) tcp-echo-server on kernel sockets in a
# network namespace reached over a veth pair, (b) ofcd's test echo service
# at 10.66.0.2 on its tap when an ofcd binary is given and answers, and
# (c) the same ofcd echo service on net_af_packet bound to the namespace's
# own end of that veth, at the kernel server's address: the same client,
# path and address as (a), ofcd's TCP stack in place of the kernel's. The
# host end's TX checksum offload is off for all three (the kernel would
# leave checksums partial on a veth, which ofcd drops as bad). Then one
# table with the ratios ofcd/kernel for every figure, and the server's own
# CPU seconds over the round-trip test (the kernel server's process, whose
# system time holds most of its TCP work; ofcd's whole process), for
# round trips per CPU second. Prints, never asserts (exit 0 unless the
# kernel baseline itself cannot be set up). Needs root. Bounded to under
# 4 minutes; the namespace and every process it started are removed on any
# exit.
#
# usage: run_bench_tcp.sh TOOLS_DIR [OFCD_BINARY [OFCD_CONFIG]]
#   TOOLS_DIR  holds tcp-bench, tcp-echo-server, tcp-echo-client (build dir)
# env: BENCH_JSON_DIR=DIR keeps the JSON files of tcp-bench there (and
#      tcp_cpu.json: round trips per server CPU second of each server);
#      BENCH_PORT (default random 10000..29999) is the echo port of both
#      servers (ofcd gets --tcp.echo_port=BENCH_PORT);
#      OFCD_ADDR (default 10.66.0.2) where ofcd's echo service answers;
#      RTT_SECONDS (default 5), CPS_CONNS (10000), TPUT_CONNS (100),
#      TPUT_BYTES (1M), RTT_CONNS (1000) size the runs.
set -uo pipefail
TOOLS=${1:?usage: run_bench_tcp.sh TOOLS_DIR [OFCD_BINARY [OFCD_CONFIG]]}
OFCD=${2:-}
CONF=${3:-$(cd "$(dirname "$0")/../.." && pwd)/config/ofcd.conf}

NS=ofcd-bench
VETH_HOST=ofcb-h
VETH_NS=ofcb-n
HOST_IP=10.77.0.1
NS_IP=10.77.0.2
OFCD_IP=${OFCD_ADDR:-10.66.0.2}
# A fresh echo port per run: the client's TIME_WAIT sockets from a run less
# than a minute ago share the 4-tuple with a fixed port and make every
# connect() search for a free ephemeral port, which would cut connections/s
# several times over on the next run.
PORT=${BENCH_PORT:-$((10000 + RANDOM % 20000))}
BUDGET=230              # seconds for the whole run, below the 4-minute bound
RTT_SECONDS=${RTT_SECONDS:-5}
CPS_CONNS=${CPS_CONNS:-10000}
TPUT_CONNS=${TPUT_CONNS:-100}
TPUT_BYTES=${TPUT_BYTES:-1M}
RTT_CONNS=${RTT_CONNS:-1000}

BENCH=$TOOLS/tcp-bench
SERVER=$TOOLS/tcp-echo-server
CLIENT=$TOOLS/tcp-echo-client
work=$(mktemp -d /tmp/ofcd-bench-tcp.XXXXXX)
t_begin=$SECONDS
spid=
opid=
bpid=

stop_pid() {
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    timeout 5 tail -s 0.05 --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

cleanup() {
    [ -n "${old_ports:-}" ] && sysctl -q -w net.ipv4.ip_local_port_range="$old_ports"
    stop_pid "$bpid"
    stop_pid "$opid"
    stop_pid "$spid"
    ip link del "$VETH_HOST" 2>/dev/null
    ip netns del "$NS" 2>/dev/null
    if [ -n "${BENCH_JSON_DIR:-}" ]; then
        mkdir -p "$BENCH_JSON_DIR" && cp "$work"/*.json "$BENCH_JSON_DIR"/ 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

die() {
    echo "bench-tcp: $*" >&2
    exit 1
}

left() {
    echo $((BUDGET - (SECONDS - t_begin)))
}

# wait_line FILE PATTERN SECONDS
wait_line() {
    timeout "$3" bash -c 'tail -n +1 -F "$0" 2>/dev/null | grep -q -m1 -E "$1"' "$1" "$2"
}

# bench_one LABEL ADDR PER_TEST_TIMEOUT TEST ARGS...: one tcp-bench test,
# output appended to $work/LABEL.out and shown. Run in the background and
# waited for, so a signal to this script is handled at once (cleanup stops
# it through $bpid); past the overall budget `timeout` sends SIGINT, on
# which tcp-bench still prints what it measured.
bench_one() {
    local label=$1 addr=$2 t=$3 test=$4 budget rc
    shift 4
    budget=$(left)
    if [ "$budget" -le 5 ]; then
        echo "bench-tcp: time budget spent, $label $test not run" >&2
        return 1
    fi
    timeout -s INT -k 5 "$budget" "${BENCH_PREFIX[@]}" "$BENCH" --addr "$addr" --port "$PORT" --label "$label" \
        --timeout "$t" --json "$work/$label-$test.json" --test "$test" "$@" \
        >"$work/$label-$test.out" 2>&1 &
    bpid=$!
    wait "$bpid"
    rc=$?
    bpid=
    tee -a "$work/$label.out" <"$work/$label-$test.out"
    return $rc
}

# cpu_ticks PID: user + system time of PID, clock ticks.
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# bench LABEL ADDR TIMEOUT [SERVER_PID] [PREFIX...]: the three tests, tcp-bench
# run under PREFIX (e.g. ip netns exec NS); with SERVER_PID, that process's
# CPU seconds over the round-trip test go to $work/LABEL.cpu.
bench() {
    local label=$1 addr=$2 t=$3 srv=${4:-} c0
    shift 3
    [ $# -gt 0 ] && shift
    BENCH_PREFIX=("$@")
    bench_one "$label" "$addr" "$t" cps --conns "$CPS_CONNS" --parallel 64 &&
    bench_one "$label" "$addr" "$t" tput --conns "$TPUT_CONNS" --bytes "$TPUT_BYTES" || return 1
    [ -n "$srv" ] && c0=$(cpu_ticks "$srv")
    bench_one "$label" "$addr" "$t" rtt --conns "$RTT_CONNS" --duration "$RTT_SECONDS" || return 1
    [ -n "$srv" ] && awk -v a="$c0" -v b="$(cpu_ticks "$srv")" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%.2f\n", (b - a) / hz }' >"$work/$label.cpu"
    return 0
}
BENCH_PREFIX=()

[ "$(id -u)" -eq 0 ] || die "needs root (network namespace, veth, tap)"
for t in "$BENCH" "$SERVER" "$CLIENT"; do
    [ -x "$t" ] || die "$t missing: build first (meson compile -C build)"
done

# Each run leaves its 11,100 client connections in TIME_WAIT for a minute,
# and Linux's connect() does not take a port that a TIME_WAIT socket holds:
# the third run would find fewer free ephemeral ports than it needs
# (connections failing with nothing wrong at the server). The range is
# widened while the bench runs.
old_ports=$(sysctl -n net.ipv4.ip_local_port_range | tr -s '\t ' ' ')
sysctl -q -w net.ipv4.ip_local_port_range="1024 65000" || die "cannot widen the ephemeral ports"

# --- (a) kernel baseline: echo server in a namespace over veth -------------
ip link del "$VETH_HOST" 2>/dev/null
ip netns del "$NS" 2>/dev/null
ip netns add "$NS" || die "ip netns add $NS"
ip link add "$VETH_HOST" type veth peer name "$VETH_NS" netns "$NS" || die "veth"
ip addr add "$HOST_IP/24" dev "$VETH_HOST"
ip link set "$VETH_HOST" up
command -v ethtool >/dev/null || die "ethtool missing: scripts/install-deps installs it"
ethtool -K "$VETH_HOST" tx off >/dev/null || die "ethtool -K $VETH_HOST tx off"
ip -n "$NS" addr add "$NS_IP/24" dev "$VETH_NS"
ip -n "$NS" link set "$VETH_NS" up
ip -n "$NS" link set lo up
ip netns exec "$NS" "$SERVER" --addr "$NS_IP" --port "$PORT" >"$work/server.log" 2>&1 &
spid=$!
wait_line "$work/server.log" '^listening on' 10 || die "kernel echo server did not start"

echo "== kernel echo server at $NS_IP:$PORT (namespace $NS, veth) =="
bench kernel "$NS_IP" 20 "$spid" || echo "bench-tcp: kernel run incomplete" >&2
stop_pid "$spid"
spid=

# --- (b) ofcd's echo service ---------------------------------------------------
# The echo service is test-only: in ofcd only when built with
# -Dtest_services=true (make bench's build is); a product build has none.
ofcd_echo=
if [ -n "$OFCD" ] && [ -x "$OFCD" ] &&
        "$OFCD" --print-config 2>/dev/null | grep -q '^echo_port = '; then
    ofcd_echo=yes
fi
ofcd_state=skipped
if [ -z "$OFCD" ]; then
    echo "bench-tcp: no ofcd binary given, ofcd column skipped"
elif [ ! -x "$OFCD" ]; then
    echo "bench-tcp: $OFCD is not executable, ofcd column skipped"
elif [ -z "$ofcd_echo" ]; then
    echo "bench-tcp: $OFCD is built without the test services (meson setup" \
        "-Dtest_services=true), ofcd columns skipped"
else
    echo "== ofcd echo service at $OFCD_IP:$PORT =="
    "$OFCD" --config "$CONF" --tcp.echo_port="$PORT" --app.data_dir="$work/var" \
        >"$work/ofcd.log" 2>&1 &
    opid=$!
    # Ends on the ready line, or at once when ofcd exits (e.g. an unknown key).
    if ! timeout 40 bash -c 'tail -n +1 -F --pid="$1" "$0" 2>/dev/null |
            grep -q -m1 "ofcd ready"' "$work/ofcd.log" "$opid"; then
        echo "bench-tcp: ofcd did not start (with --tcp.echo_port=$PORT); ofcd column" \
            "skipped. Its log ends:"
        tail -5 "$work/ofcd.log" | sed 's/^/    /'
    elif ! timeout 10 "$CLIENT" --addr "$OFCD_IP" --port "$PORT" --conns 1 --bytes 4K \
        --timeout 5 >"$work/probe.out" 2>&1; then
        echo "bench-tcp: ofcd started but its echo service at $OFCD_IP:$PORT does not" \
            "answer; ofcd column skipped:"
        tail -3 "$work/probe.out" | sed 's/^/    /'
    else
        bench ofcd "$OFCD_IP" 15 "$opid" && ofcd_state=ran || ofcd_state=partial
    fi
    stop_pid "$opid"
    opid=
fi

# --- (c) ofcd on net_af_packet, on the kernel server's end of the veth ----------
veth_state=skipped
if [ -n "$ofcd_echo" ]; then
    echo "== ofcd echo service on net_af_packet at $NS_IP:$PORT (the same veth) =="
    # The namespace's kernel gives the address up: only ofcd answers at it
    # (with the interface's MAC, which DPDK's af_packet driver takes).
    ip -n "$NS" addr del "$NS_IP/24" dev "$VETH_NS"
    ip netns exec "$NS" "$OFCD" --config "$CONF" --tcp.echo_port="$PORT" \
        --app.data_dir="$work/var_veth" --net.address="$NS_IP/24" --net.configure_kernel=false \
        --eal.args="--no-huge -m 512 --no-pci --vdev=net_af_packet0,iface=$VETH_NS,framecnt=8192 --file-prefix=ofcd-bench-tcp" \
        >"$work/ofcd_veth.log" 2>&1 &
    opid=$!
    if ! timeout 40 bash -c 'tail -n +1 -F --pid="$1" "$0" 2>/dev/null |
            grep -q -m1 "ofcd ready"' "$work/ofcd_veth.log" "$opid"; then
        echo "bench-tcp: ofcd on $VETH_NS did not start; its log ends:"
        tail -5 "$work/ofcd_veth.log" | sed 's/^/    /'
    elif ! timeout 10 "$CLIENT" --addr "$NS_IP" --port "$PORT" --conns 1 --bytes 4K \
        --timeout 5 >"$work/probe_veth.out" 2>&1; then
        echo "bench-tcp: ofcd on $VETH_NS does not answer at $NS_IP:$PORT:"
        tail -3 "$work/probe_veth.out" | sed 's/^/    /'
    else
        bench ofcd_veth "$NS_IP" 15 "$opid" && veth_state=ran || veth_state=partial
    fi
    stop_pid "$opid"
    opid=
fi

# --- table ---------------------------------------------------------------------
# result lines: "result label=L test=T k=v ..." -> value of key K for L/T.
value() {
    local f files=(/dev/null)
    for f in "$work/kernel.out" "$work/ofcd.out" "$work/ofcd_veth.out"; do
        [ -f "$f" ] && files+=("$f")
    done
    awk -v l="$1" -v t="$2" -v k="$3" '
        $1 == "result" && $2 == "label=" l && $3 == "test=" t {
            for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) v = kv[2] }
        }
        END { print (v == "" ? "-" : v) }' "${files[@]}"
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}
echo
echo "== TCP bench: ofcd vs kernel echo server (this machine, $(nproc) cores) =="
printf '%-22s %12s %12s %12s %11s %11s\n' figure kernel "ofcd tap" "ofcd veth" tap/kernel \
    veth/kernel
while read -r test key name; do
    k=$(value kernel "$test" "$key")
    o=$(value ofcd "$test" "$key")
    v=$(value ofcd_veth "$test" "$key")
    printf '%-22s %12s %12s %12s %11s %11s\n' "$name" "$k" "$o" "$v" "$(ratio "$o" "$k")" \
        "$(ratio "$v" "$k")"
done <<'EOF'
cps conns_per_s connections/s
cps connect_p50_us connect_p50_us
tput mb_per_s throughput_MB/s
rtt msgs_per_s round_trips/s
rtt p50_us rtt_p50_us
rtt p90_us rtt_p90_us
rtt p99_us rtt_p99_us
rtt max_us rtt_max_us
cps failed cps_failed_conns
tput failed tput_failed_conns
rtt failed rtt_failed_conns
EOF
cpu() { [ -f "$work/$1.cpu" ] && cat "$work/$1.cpu" || echo -; }
per_cpu() {   # round trips per server CPU second
    awk -v m="$(value "$1" rtt msgs_per_s)" -v c="$(cpu "$1")" -v s="$RTT_SECONDS" 'BEGIN {
        if (m == "-" || c == "-" || c + 0 == 0) print "-"; else printf "%.0f", m * s / c }'
}
k=$(per_cpu kernel) o=$(per_cpu ofcd) v=$(per_cpu ofcd_veth)
if [ -n "${BENCH_JSON_DIR:-}" ]; then
    # What the report's per-core comparison reads ("-": not measured).
    printf '{"round_trips_per_cpu_s": {"kernel": "%s", "ofcd": "%s", "ofcd_veth": "%s"}}\n' \
        "$k" "$o" "$v" >"$BENCH_JSON_DIR/tcp_cpu.json"
fi
printf '%-22s %12s %12s %12s\n' server_cpu_s "$(cpu kernel)" "$(cpu ofcd)" "$(cpu ofcd_veth)"
printf '%-22s %12s %12s %12s %11s %11s\n' round_trips/cpu_s "$k" "$o" "$v" "$(ratio "$o" "$k")" \
    "$(ratio "$v" "$k")"
echo "(server_cpu_s: the server's process over the round-trip test — the kernel server's"
echo " system time holds most of the kernel's TCP work for it, ofcd's is its whole process)"
echo "(ofcd tap: $ofcd_state, ofcd veth: $veth_state; $CPS_CONNS conns for connections/s, $TPUT_CONNS x $TPUT_BYTES for" \
    "throughput, $RTT_CONNS conns x 64 B for ${RTT_SECONDS}s of round trips;" \
    "elapsed $((SECONDS - t_begin)) s)"
exit 0
