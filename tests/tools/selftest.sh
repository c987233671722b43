#!/usr/bin/env bash
# Selftest of the kernel-socket TCP tools: tcp-echo-server runs in a network
# namespace of its own, reached over a veth pair, and tcp-echo-client runs
# every mode against it: echo (100 x 200 KB, checksums equal), halfclose-only
# with 0 bytes and with data, reset, hold + SIGKILL of the client (the
# server's connection count must return to 0), and two runs that must fail
# (a server that corrupts one byte, a port nobody listens on), so the client's
# verdicts are shown to bite. Needs root; about 10 s; cleans up on any exit.
#
# usage: selftest.sh TCP_ECHO_CLIENT TCP_ECHO_SERVER
set -uo pipefail
CLIENT=$1
SERVER=$2

NS=ofcd-tools-test
VETH_HOST=ofct-h
VETH_NS=ofct-n
HOST_IP=10.78.0.1
NS_IP=10.78.0.2
PORT=7007
BAD_PORT=7008     # the corrupting server
DEAD_PORT=7009    # nobody listens

work=$(mktemp -d /tmp/ofcd-tools-selftest.XXXXXX)
spid=
bpid=
hpid=
cpid=
seq=0

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

pass() {
    echo "ok: $*"
}

stop_pid() {
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    timeout 5 tail -s 0.05 --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

cleanup() {
    [ -n "$cpid" ] && kill -KILL "$cpid" 2>/dev/null
    [ -n "$hpid" ] && kill -KILL "$hpid" 2>/dev/null
    stop_pid "$bpid"
    stop_pid "$spid"
    ip link del "$VETH_HOST" 2>/dev/null
    ip netns del "$NS" 2>/dev/null
    if [ -n "${KEEP_LOGS:-}" ]; then echo "logs in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

[ "$(id -u)" -eq 0 ] || fail "needs root (network namespace and veth)"
[ -x "$CLIENT" ] && [ -x "$SERVER" ] || fail "usage: selftest.sh CLIENT SERVER"

# wait_line_after FILE N PATTERN SECONDS: a line matching PATTERN appears in
# FILE after its first N lines (follows the file, no polling).
wait_line_after() {
    timeout "$4" bash -c 'tail -n +"$(($1 + 1))" -F "$0" 2>/dev/null | grep -q -m1 -E "$2"' \
        "$1" "$2" "$3"
}

lines() {
    wc -l <"$1"
}

# stats: asks the server (SIGUSR1) for a fresh stats line, left in $STATS.
# (Not called in $(...): the sequence number must survive.)
STATS=
stats() {
    local n
    n=$(lines "$work/server.log")
    seq=$((seq + 1))
    kill -USR1 "$spid" || fail "server gone"
    wait_line_after "$work/server.log" "$n" "^stats seq=$seq " 5 || fail "no stats reply"
    STATS=$(grep "^stats seq=$seq " "$work/server.log" | tail -1)
}

field() { # field LINE KEY
    echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# wait_idle SECONDS: the server's active connection count reaches 0.
wait_idle() {
    local n
    n=$(lines "$work/server.log")
    stats
    [ "$(field "$STATS" conns_active)" = 0 ] && return 0
    wait_line_after "$work/server.log" "$n" '^idle ' "$1" || return 1
    stats
    [ "$(field "$STATS" conns_active)" = 0 ]
}

# run_client NAME ARGS...: runs the client, output in $work/NAME.out, rc in $rc.
# The client bounds itself (--timeout); it runs in the background and is
# waited for so that a signal reaches the trap at once.
run_client() {
    local name=$1
    shift
    "$CLIENT" --timeout 30 --json "$work/$name.json" "$@" >"$work/$name.out" 2>&1 &
    cpid=$!
    wait "$cpid"
    rc=$?
    cpid=
}

show() {
    sed 's/^/    /' "$work/$1.out" >&2
}

# --- namespace + veth --------------------------------------------------------
ip link del "$VETH_HOST" 2>/dev/null
ip netns del "$NS" 2>/dev/null
ip netns add "$NS" || fail "ip netns add"
ip link add "$VETH_HOST" type veth peer name "$VETH_NS" netns "$NS" || fail "veth"
ip addr add "$HOST_IP/24" dev "$VETH_HOST"
ip link set "$VETH_HOST" up
ip -n "$NS" addr add "$NS_IP/24" dev "$VETH_NS"
ip -n "$NS" link set "$VETH_NS" up
ip -n "$NS" link set lo up

# `ip netns exec` execs the server, so $! is the server's own pid.
ip netns exec "$NS" "$SERVER" --addr "$NS_IP" --port "$PORT" --buf 64K \
    --stats-file "$work/stats" >"$work/server.log" 2>&1 &
spid=$!
ip netns exec "$NS" "$SERVER" --addr "$NS_IP" --port "$BAD_PORT" --corrupt-at 100000 \
    >"$work/bad.log" 2>&1 &
bpid=$!
wait_line_after "$work/server.log" 0 '^listening on' 10 || fail "server did not start"
wait_line_after "$work/bad.log" 0 '^listening on' 10 || fail "corrupting server did not start"
pass "echo servers listening in namespace $NS at $NS_IP"

A=(--addr "$NS_IP" --port "$PORT")

# --- echo: 100 connections x 200 KB, byte-exact, then EOF -------------------
run_client echo "${A[@]}" --conns 100 --bytes 200K --seed 7
last=$(tail -1 "$work/echo.out")
[ $rc -eq 0 ] || { show echo; fail "echo: exit $rc"; }
[ "$last" = "conns_ok=100 conns_failed=0 bytes_verified=$((100 * 204800))" ] ||
    { show echo; fail "echo: final line '$last'"; }
sums=$(grep -o '"checksum_[a-z]*":"0x[0-9a-f]*"' "$work/echo.json" | cut -d'"' -f4 | sort -u)
[ "$(echo "$sums" | wc -l)" -eq 1 ] && [ "$sums" != 0x0000000000000000 ] ||
    fail "echo: sent and received checksums differ: $sums"
pass "echo: $last, checksums equal ($sums)"
wait_idle 10 || fail "echo: server still has connections"

# --- halfclose-only, 0 bytes and with data ----------------------------------
run_client hc0 "${A[@]}" --conns 50 --bytes 0 --mode halfclose-only
last=$(tail -1 "$work/hc0.out")
[ $rc -eq 0 ] && [ "$last" = "conns_ok=50 conns_failed=0 bytes_verified=0" ] ||
    { show hc0; fail "halfclose-only 0 bytes: exit $rc, '$last'"; }
pass "halfclose-only 0 bytes: $last"

run_client hc "${A[@]}" --conns 50 --bytes 48K --mode halfclose-only
last=$(tail -1 "$work/hc.out")
[ $rc -eq 0 ] && [ "$last" = "conns_ok=50 conns_failed=0 bytes_verified=$((50 * 49152))" ] ||
    { show hc; fail "halfclose-only 48K: exit $rc, '$last'"; }
pass "halfclose-only 48 KB: $last"
wait_idle 10 || fail "halfclose-only: server still has connections"

# --- reset mid-transfer: the server must drop every connection --------------
stats
before=$STATS
run_client reset "${A[@]}" --conns 100 --bytes 200K --mode reset
last=$(tail -1 "$work/reset.out")
[ $rc -eq 0 ] && [[ "$last" == "conns_ok=100 conns_failed=0 "* ]] ||
    { show reset; fail "reset: exit $rc, '$last'"; }
wait_idle 10 || fail "reset: server did not return to 0 connections: $STATS"
after=$STATS
resets=$(($(field "$after" closed_reset) - $(field "$before" closed_reset)))
[ "$resets" -gt 0 ] || fail "reset: the server saw no reset ($after)"
pass "reset: $last; server back to 0 connections ($resets closed by reset)"

# --- hold, then SIGKILL the client: the server must clean up ----------------
for bytes in 200K 0; do
    "$CLIENT" "${A[@]}" --conns 200 --bytes "$bytes" --mode hold --timeout 20 \
        >"$work/hold.out" 2>&1 &
    hpid=$!
    wait_line_after "$work/hold.out" 0 '^holding ' 25 || { show hold; fail "hold: no 'holding'"; }
    grep -q '^holding 200 connections$' "$work/hold.out" ||
        { show hold; fail "hold $bytes: not all 200 held"; }
    stats
    [ "$(field "$STATS" conns_active)" = 200 ] || fail "hold $bytes: server sees: $STATS"
    kill -KILL "$hpid"
    wait "$hpid" 2>/dev/null
    hpid=
    wait_idle 10 || fail "hold $bytes: connections left after the client's SIGKILL: $STATS"
    pass "hold $bytes: 200 held, client SIGKILLed, server back to 0 connections"
done

# --- the verdicts bite: corrupted byte, refused connections -----------------
run_client bad --addr "$NS_IP" --port "$BAD_PORT" --conns 10 --bytes 200K
last=$(tail -1 "$work/bad.out")
[ $rc -eq 1 ] || { show bad; fail "corrupting server: exit $rc, expected 1"; }
[ "$last" = "conns_ok=0 conns_failed=10 bytes_verified=$((10 * 100000))" ] ||
    { show bad; fail "corrupting server: final line '$last'"; }
[ "$(grep -c 'mismatch at offset 100000 ' "$work/bad.out")" -eq 10 ] ||
    { show bad; fail "corrupting server: mismatch not reported at offset 100000"; }
pass "corrupted byte caught: $last, mismatch at offset 100000"

run_client dead --addr "$NS_IP" --port "$DEAD_PORT" --conns 5 --bytes 1K
last=$(tail -1 "$work/dead.out")
[ $rc -eq 1 ] && [ "$last" = "conns_ok=0 conns_failed=5 bytes_verified=0" ] &&
    grep -q 'ECONNREFUSED=5' "$work/dead.out" ||
    { show dead; fail "closed port: exit $rc, '$last'"; }
pass "closed port: $last, ECONNREFUSED=5"

# --- the server's totals and a clean SIGTERM ---------------------------------
stats
s=$STATS
[ "$(field "$s" closed_error)" = 0 ] || fail "server reports socket errors: $s"
cmp -s <(echo "$s") "$work/stats" || fail "stats file differs from the SIGUSR1 line"
kill -TERM "$spid"
timeout 5 tail -s 0.05 --pid="$spid" -f /dev/null || fail "server did not exit on SIGTERM"
wait "$spid"
rc=$?
spid=
[ $rc -eq 0 ] || fail "server exit code $rc on SIGTERM"
pass "server: $(field "$s" conns_total) connections served, exit 0 on SIGTERM"
echo "selftest: all passed"
