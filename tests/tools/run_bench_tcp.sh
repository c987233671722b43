#!/usr/bin/env bash
# TCP bench: tcp-bench against (a) tcp-echo-server on kernel sockets in a
# network namespace reached over a veth pair and (b) ofcd's test echo service
# at 10.66.0.2 when an ofcd binary is given and answers; then one table
# with the ratio ofcd/kernel for every figure. Prints, never asserts (exit 0
# unless the kernel baseline itself cannot be set up). Needs root. Bounded
# to under 3 minutes; the namespace and every process it started are
# removed on any exit.
#
# usage: run_bench_tcp.sh TOOLS_DIR [OFCD_BINARY [OFCD_CONFIG]]
#   TOOLS_DIR  holds tcp-bench, tcp-echo-server, tcp-echo-client (build dir)
# env: BENCH_JSON_DIR=DIR keeps the JSON files of tcp-bench there;
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
BUDGET=170              # seconds for the whole run, below the 3-minute bound
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
    timeout -s INT -k 5 "$budget" "$BENCH" --addr "$addr" --port "$PORT" --label "$label" \
        --timeout "$t" --json "$work/$label-$test.json" --test "$test" "$@" \
        >"$work/$label-$test.out" 2>&1 &
    bpid=$!
    wait "$bpid"
    rc=$?
    bpid=
    tee -a "$work/$label.out" <"$work/$label-$test.out"
    return $rc
}

bench() {
    local label=$1 addr=$2 t=$3
    bench_one "$label" "$addr" "$t" cps --conns "$CPS_CONNS" --parallel 64 &&
    bench_one "$label" "$addr" "$t" tput --conns "$TPUT_CONNS" --bytes "$TPUT_BYTES" &&
    bench_one "$label" "$addr" "$t" rtt --conns "$RTT_CONNS" --duration "$RTT_SECONDS"
}

[ "$(id -u)" -eq 0 ] || die "needs root (network namespace, veth, tap)"
for t in "$BENCH" "$SERVER" "$CLIENT"; do
    [ -x "$t" ] || die "$t missing: build first (meson compile -C build)"
done

# --- (a) kernel baseline: echo server in a namespace over veth -------------
ip link del "$VETH_HOST" 2>/dev/null
ip netns del "$NS" 2>/dev/null
ip netns add "$NS" || die "ip netns add $NS"
ip link add "$VETH_HOST" type veth peer name "$VETH_NS" netns "$NS" || die "veth"
ip addr add "$HOST_IP/24" dev "$VETH_HOST"
ip link set "$VETH_HOST" up
ip -n "$NS" addr add "$NS_IP/24" dev "$VETH_NS"
ip -n "$NS" link set "$VETH_NS" up
ip -n "$NS" link set lo up
ip netns exec "$NS" "$SERVER" --addr "$NS_IP" --port "$PORT" >"$work/server.log" 2>&1 &
spid=$!
wait_line "$work/server.log" '^listening on' 10 || die "kernel echo server did not start"

echo "== kernel echo server at $NS_IP:$PORT (namespace $NS, veth) =="
bench kernel "$NS_IP" 20 || echo "bench-tcp: kernel run incomplete" >&2
stop_pid "$spid"
spid=

# --- (b) ofcd's echo service ---------------------------------------------------
ofcd_state=skipped
if [ -z "$OFCD" ]; then
    echo "bench-tcp: no ofcd binary given, ofcd column skipped"
elif [ ! -x "$OFCD" ]; then
    echo "bench-tcp: $OFCD is not executable, ofcd column skipped"
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
        bench ofcd "$OFCD_IP" 15 && ofcd_state=ran || ofcd_state=partial
    fi
    stop_pid "$opid"
    opid=
fi

# --- table ---------------------------------------------------------------------
# result lines: "result label=L test=T k=v ..." -> value of key K for L/T.
value() {
    local f files=(/dev/null)
    for f in "$work/kernel.out" "$work/ofcd.out"; do [ -f "$f" ] && files+=("$f"); done
    awk -v l="$1" -v t="$2" -v k="$3" '
        $1 == "result" && $2 == "label=" l && $3 == "test=" t {
            for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) v = kv[2] }
        }
        END { print (v == "" ? "-" : v) }' "${files[@]}"
}

echo
echo "== TCP bench: ofcd vs kernel echo server (this machine, $(nproc) cores) =="
printf '%-22s %14s %14s %12s\n' figure kernel ofcd ofcd/kernel
while read -r test key name; do
    k=$(value kernel "$test" "$key")
    o=$(value ofcd "$test" "$key")
    r=$(awk -v a="$o" -v b="$k" 'BEGIN {
        if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }')
    printf '%-22s %14s %14s %12s\n' "$name" "$k" "$o" "$r"
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
echo "(ofcd: $ofcd_state; $CPS_CONNS conns for connections/s, $TPUT_CONNS x $TPUT_BYTES for" \
    "throughput, $RTT_CONNS conns x 64 B for ${RTT_SECONDS}s of round trips;" \
    "elapsed $((SECONDS - t_begin)) s)"
exit 0
