# Shared helpers for the integration tests (sourced, not run).
# Each test runs as root, one at a time, and cleans up after itself.

# fail MESSAGE: the test failed; with ofcd started (start_ofcd), show
# whether it still runs and the end of its log (a crash's report is there,
# and the work directory is gone after the test).
fail() {
    echo "FAIL: $*" >&2
    if [ -n "${OFCD_LOG:-}" ] && [ -f "$OFCD_LOG" ]; then
        local alive="NOT running"
        [ -n "${OFCD_PID:-}" ] && kill -0 "$OFCD_PID" 2>/dev/null && alive=running
        echo "--- ofcd is $alive; the last 60 lines of its log:" >&2
        tail -n 60 "$OFCD_LOG" >&2
    fi
    exit 1
}

pass() {
    echo "ok: $*"
}

# wait_for_line FILE PATTERN SECONDS: block until PATTERN appears in FILE
# (follows the file as it grows; returns 1 on timeout).
wait_for_line() {
    local file=$1 pattern=$2 secs=$3
    timeout "$secs" bash -c 'tail -n +1 -F "$0" 2>/dev/null | grep -q -m1 -E "$1"' \
        "$file" "$pattern"
}

# wait_for_exit PID SECONDS: 0 when PID is gone in time, 1 otherwise.
wait_for_exit() {
    local pid=$1 secs=$2
    timeout "$secs" tail -s 0.02 --pid="$pid" -f /dev/null
}

require_root() {
    [ "$(id -u)" -eq 0 ] || fail "integration tests need root (tap devices, ping sockets)"
    [ -c /dev/net/tun ] || fail "/dev/net/tun missing: the tap PMD needs it"
}

# require_tool COMMAND [WHAT]: fail unless COMMAND is installed.
require_tool() {
    command -v "$1" >/dev/null || fail "${2:-$1} missing: scripts/install-deps installs it"
}

# require_test_services: skip (exit 77) unless $OFCD has the test-only
# services (the TCP echo of tcp.echo_port / tcp.echo_connect), which only a
# build set up with -Dtest_services=true has (make test's builds do); a
# product build prints no echo_port in --print-config.
require_test_services() {
    "$OFCD" --print-config 2>/dev/null | grep -q '^echo_port = ' && return 0
    echo "SKIP: $OFCD is built without the test services (meson setup -Dtest_services=true)"
    exit 77
}

# start_ofcd LOG ARGS...: start ofcd in the background (pid in $OFCD_PID) and
# wait for its "ofcd ready" line; fails the test if it does not come.
start_ofcd() {
    local log=$1
    shift
    "$OFCD" "$@" >"$log" 2>&1 &
    OFCD_PID=$!
    OFCD_LOG=$log
    wait_for_line "$log" 'ofcd ready|ERROR' 60 || { cat "$log"; fail "no 'ofcd ready' in 60 s"; }
    grep -q 'ofcd ready' "$log" || { cat "$log"; fail "ofcd failed to start"; }
    # Where this ofcd serves ofcdctl, as it says (a test may move it).
    OFCD_CTL_SOCK=$(sed -n "s/.*ofcdctl's socket: //p" "$log" | tail -1)
    [ -n "$OFCD_CTL_SOCK" ] || fail "ofcd did not log its ofcdctl socket"
}

# stop_ofcd: SIGTERM, expect exit 0 within 5 s.
stop_ofcd() {
    [ -n "${OFCD_PID:-}" ] || return 0
    # OFCD_STOP_S: ThreadSanitizer makes freeing the buffer pools take seconds.
    local limit=${OFCD_STOP_S:-5}
    kill -TERM "$OFCD_PID"
    wait_for_exit "$OFCD_PID" "$limit" || fail "ofcd still running $limit s after SIGTERM"
    wait "$OFCD_PID"
    local rc=$?
    OFCD_PID=
    [ $rc -eq 0 ] || fail "ofcd exit code $rc after SIGTERM"
}

# ofcdctl ARGS...: ofcdctl (built next to ofcd) on the socket the running
# ofcd logged (start_ofcd), else the one the test's configuration names.
ofcdctl() {
    local where=(${CONF:+--config "$CONF"})
    [ -n "${OFCD_CTL_SOCK:-}" ] && where=(--socket "$OFCD_CTL_SOCK")
    "${OFCDCTL:-$(dirname "$OFCD")/ofcdctl}" "${where[@]}" "$@"
}

# ctl_counter FIELD [GROUP]: FIELD's value (e.g. "conns_down") as the
# running ofcd counts it now, from `ofcdctl counters/show [GROUP]`: the last
# counter whose name is or ends in FIELD, in the order SIGUSR1 logs them
# (as the log was read before: "chunks_free" finds tcp_chunks_free, and
# "established" the last lcore's last set with such a counter). Fails,
# saying so, when no set has it.
ctl_counter() {
    local field=$1 out v
    out=$(ofcdctl counters/show ${2:+"$2"}) || return 1
    v=$(grep -o -- "$field=[0-9]*" <<<"$out" | tail -1 | cut -d= -f2)
    [ -n "$v" ] || { echo "no counter $field in ofcdctl counters/show ${2:-}" >&2; return 1; }
    echo "$v"
}

# ofcd_stat LOG FIELD: ctl_counter FIELD, for the tests written when the
# counters were read from LOG after SIGUSR1 (LOG is not read any more).
ofcd_stat() {
    ctl_counter "$2"
}

# wait_stat LOG FIELD VALUE SECONDS [ge]: until the counter equals VALUE
# (or, with "ge", reaches at least VALUE). Counters are snapshots the lcores
# refresh every 100 ms, so a test waits for a value rather than reading once.
wait_stat() {
    local log=$1 field=$2 want=$3 secs=$4 cmp=${5:-eq} v
    local end=$((SECONDS + secs))
    while [ $SECONDS -lt $end ]; do
        v=$(ctl_counter "$field") || return 1
        [ "$cmp" = ge ] && [ "$v" -ge "$want" ] && return 0
        [ "$v" = "$want" ] && return 0
        sleep 0.2
    done
    echo "$field=$v after ${secs}s, expected $cmp $want" >&2
    return 1
}

# rest_metric NAME: the value of NAME (a full series name, labels included)
# in ofcd's /metrics; 0 when absent. With rest.auth on, OFCD_METRICS_TOKEN
# is the bearer token to read it with (a static reader token, say).
rest_metric() {
    curl -s ${OFCD_METRICS_TOKEN:+--oauth2-bearer "$OFCD_METRICS_TOKEN"} \
        http://127.0.0.1:8181/metrics |
        awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }'
}

# wait_rest_metric NAME VALUE SECS: until /metrics shows NAME = VALUE.
wait_rest_metric() {
    local end=$((SECONDS + $3)) v
    while :; do
        v=$(rest_metric "$1")
        [ "$v" = "$2" ] && return 0
        [ $SECONDS -ge $end ] && { echo "$1 = $v after $3 s, expected $2" >&2; return 1; }
        sleep 0.1
    done
}

# it_setup NAME: the test's work directory in $work and an EXIT trap that
# undoes what the test started: commands registered with it_on_exit (in
# order), Open vSwitch if ovs_lib.sh is loaded, ofcd ($OFCD_PID), and $work
# itself unless KEEP_LOGS is set.
IT_EXIT_CMDS=()
it_setup() {
    work=$(mktemp -d "/tmp/ofcd-it-$1.XXXXXX")
    OFCD_PID=
    trap it_cleanup EXIT
}

it_on_exit() {
    IT_EXIT_CMDS+=("$*")
}

it_cleanup() {
    local c
    for c in "${IT_EXIT_CMDS[@]}"; do
        eval "$c" 2>/dev/null
    done
    if declare -F ovs_stop >/dev/null; then
        ovs_stop
    fi
    if [ -n "${OFCD_PID:-}" ] && kill -0 "$OFCD_PID" 2>/dev/null; then
        kill -KILL "$OFCD_PID" 2>/dev/null
        wait "$OFCD_PID" 2>/dev/null
    fi
    if [ -n "${KEEP_LOGS:-}" ]; then echo "logs in $work"; else rm -rf "$work"; fi
}

# notify_listen SOCK OUT: systemd's side of sd_notify, as it listens for a
# Type=notify service: a datagram socket at SOCK, each message a line of
# OUT ('|' for its newlines). Returns once it listens; its pid in
# NOTIFY_PID, stopped at the end of a test that uses it_setup.
notify_listen() {
    python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a")
while True:
    out.write(s.recv(4096).decode().replace("\n", "|") + "\n")
    out.flush()' "$1" "$2" &
    NOTIFY_PID=$!
    it_on_exit "kill $NOTIFY_PID"
    for _ in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.05; done
    fail "the notify listener at $1 did not start"
}

# etcd_single NAME CLIENT_PORT PEER_PORT DIR [etcd options]: a one-member
# etcd of the test's own on loopback (never the system's 2379), its data in
# DIR/etcd-data and its log in DIR/etcd.log; ETCD_PID names it (set even
# when it fails to start, for the caller's cleanup). Returns once it serves
# clients, 1 if it did not within 20 s (its log's tail on stderr).
etcd_single() {
    local name=$1 cport=$2 pport=$3 dir=$4
    shift 4
    etcd --name "$name" --data-dir "$dir/etcd-data" \
        --listen-client-urls "http://127.0.0.1:$cport" \
        --advertise-client-urls "http://127.0.0.1:$cport" \
        --listen-peer-urls "http://127.0.0.1:$pport" \
        --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
        --initial-cluster "$name=http://127.0.0.1:$pport" \
        --logger zap --log-outputs "$dir/etcd.log" "$@" >/dev/null 2>&1 &
    ETCD_PID=$!
    wait_for_line "$dir/etcd.log" 'serving client (traffic|requests)' 20 ||
        { tail -20 "$dir/etcd.log" >&2; return 1; }
}
