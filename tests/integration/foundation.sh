#!/usr/bin/env bash
# Foundation: ofcd boots on its default tap, configures the kernel side,
# answers ARP and ping (incl. IP options and large frames), refuses a second
# instance with the same EAL file-prefix, rejects bad config with exit 2, and
# stops on SIGTERM within 2 s with exit code 0.
#
# usage: foundation.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root

OFCD_IP=10.66.0.2
IFACE=ofc0
work=$(mktemp -d /tmp/ofcd-it-foundation.XXXXXX)
log=$work/ofcd.log
pid=
notify_pid=

cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    [ -n "$notify_pid" ] && kill "$notify_pid" 2>/dev/null
    if [ -n "${KEEP_LOGS:-}" ]; then echo "logs in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- configuration errors stop start-up with exit 2 and name the key -------
"$OFCD" --help >"$work/help" 2>&1 || fail "--help exited non-zero"
grep -q -- '--net.address' "$work/help" || fail "--help does not list net.address"
pass "--help lists the keys"

"$OFCD" --config "$CONF" --net.arp_cache_size=5 >"$work/bad" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "bad value: exit $rc, expected 2"
grep -q 'net.arp_cache_size' "$work/bad" || fail "bad value message does not name the key"
grep -q "'5'" "$work/bad" || fail "bad value message does not quote the value"
pass "bad value rejected: $(head -1 "$work/bad")"

"$OFCD" --config "$CONF" --net.no_such_key=1 >"$work/bad" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "unknown key: exit $rc, expected 2"
grep -q 'no_such_key' "$work/bad" || fail "unknown key message does not name it"
pass "unknown key rejected"

# --- boot ------------------------------------------------------------------
# As systemd starts a Type=notify service with WatchdogSec=1: a datagram
# socket in NOTIFY_SOCKET, each message a line of notify.txt ('|' for its
# newlines).
notify_listen "$work/notify.sock" "$work/notify.txt"
notify_pid=$NOTIFY_PID
NOTIFY_SOCKET=$work/notify.sock WATCHDOG_USEC=1000000 \
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" >"$log" 2>&1 &
pid=$!
wait_for_line "$log" 'ofcd ready|ERROR' 60 || { cat "$log"; fail "no 'ofcd ready' within 60 s"; }
grep -q 'ofcd ready' "$log" || { cat "$log"; fail "start-up failed"; }
pass "ofcd ready (pid $pid)"
wait_for_line "$work/notify.txt" '^READY=1' 5 ||
    fail "systemd was not told READY=1: $(cat "$work/notify.txt" 2>/dev/null)"
grep -q '^STATUS=opening the flow store' "$work/notify.txt" ||
    fail "no STATUS while starting: $(cat "$work/notify.txt")"
wait_for_line "$work/notify.txt" '^WATCHDOG=1' 5 ||
    fail "no WATCHDOG=1 within 5 s with WATCHDOG_USEC=1000000: $(cat "$work/notify.txt")"
pass "systemd told: $(grep -c STATUS "$work/notify.txt") STATUS lines, then $(grep '^READY' "$work/notify.txt"); the watchdog fed"

ip -4 addr show dev "$IFACE" | grep -q 'inet 10.66.0.1/24' ||
    { ip addr show dev "$IFACE"; fail "kernel side of $IFACE lacks 10.66.0.1/24"; }
ip link show dev "$IFACE" | grep -q ',UP' || fail "$IFACE is not up"
pass "kernel side $IFACE is 10.66.0.1/24 and up"

# --- a second instance with the same file-prefix refuses -------------------
"$OFCD" --config "$CONF" --app.data_dir="$work/var2" >"$work/second" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "second instance started"
grep -q 'already running' "$work/second" || { cat "$work/second"; fail "no clear message"; }
kill -0 "$pid" 2>/dev/null || fail "first instance died when the second tried to start"
pass "second instance refused: $(grep -o 'another ofcd.*' "$work/second" | head -c 100)..."

# --- another file-prefix, the same data directory: refused before its store ----
"$OFCD" --config "$CONF" --app.data_dir="$work/var" \
    --eal.args="--no-huge -m 512 --no-pci --vdev=net_tap1,iface=ofc9 --file-prefix=ofcd-second" \
    >"$work/third" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "a second ofcd on the same app.data_dir started"
grep -q "already running on app.data_dir '$work/var'" "$work/third" ||
    { cat "$work/third"; fail "no clear message for a data directory in use"; }
grep -qiE 'store|journal|lmdb' "$work/third" &&
    { cat "$work/third"; fail "the second ofcd touched the store before it was refused"; }
kill -0 "$pid" 2>/dev/null || fail "first instance died when the second tried its data directory"
pass "second instance on the same data directory refused: $(grep -o 'another ofcd.*' "$work/third" | head -c 90)..."

# --- ARP --------------------------------------------------------------------
ip neigh flush dev "$IFACE" 2>/dev/null
out=$(arping -c 3 -w 10 -I "$IFACE" "$OFCD_IP" 2>&1)
echo "$out" | grep -q 'Received 3 response' || { echo "$out"; fail "arping: not 3 replies"; }
pass "arping: 3 replies"

# --- ICMP echo ----------------------------------------------------------------
out=$(ping -c 3 -i 0.2 -W 2 "$OFCD_IP" 2>&1)
echo "$out" | grep -q '3 received' || { echo "$out"; fail "ping: not 3 replies"; }
pass "ping: 3 replies"

out=$(ping -c 3 -i 0.2 -W 2 -s 1400 "$OFCD_IP" 2>&1)
echo "$out" | grep -q '3 received' || { echo "$out"; fail "ping -s 1400: not 3 replies"; }
pass "ping 1400-byte payload: 3 replies"

# Record-route puts IP options in the request: ofcd must parse past them.
out=$(ping -c 2 -i 0.2 -W 2 -R "$OFCD_IP" 2>&1)
echo "$out" | grep -q '2 received' || { echo "$out"; fail "ping -R (IP options): no replies"; }
pass "ping with IP options: 2 replies"

# A ping to another address in the subnet gets no answer from ofcd.
out=$(ping -c 1 -W 1 10.66.0.3 2>&1)
echo "$out" | grep -q '0 received' || { echo "$out"; fail "ofcd answered for 10.66.0.3"; }
pass "no answer for an address that is not ofcd's"

# --- an idle lcore sleeps until a frame rings it -------------------------------
# On the tap an idle lcore sleeps on its doorbell, rung by the tap's receive
# signal (or after 1 ms): pings 100 ms apart each find it asleep and each end
# a sleep early. Were the lcore not rung, every sleep would run out
# (idle_rung would not move) and each reply would wait for it.
r0=$(ctl_counter idle_rung) || fail "no lcore idle_rung counter"
out=$(ping -c 20 -i 0.1 -W 1 "$OFCD_IP" 2>&1)
echo "$out" | grep -q '20 received' || { echo "$out"; fail "ping: not 20 replies"; }
wait_stat "$log" idle_rung $((r0 + 15)) 5 ge || fail "the pings did not ring the idle lcore"
pass "idle lcore woken by frames: idle_rung $r0 -> $(ctl_counter idle_rung)"

# --- counters: SIGUSR1 logs them, and they match what we sent ------------------
kill -USR1 "$pid"
wait_for_line "$log" 'net:.*tx_icmp_echo_reply=' 5 || { tail -20 "$log"; fail "no net stats"; }
replies=$(grep -o 'tx_icmp_echo_reply=[0-9]*' "$log" | tail -1 | cut -d= -f2)
[ "$replies" -ge 8 ] || fail "tx_icmp_echo_reply=$replies, expected >= 8"
pass "counters logged on SIGUSR1 (tx_icmp_echo_reply=$replies)"

# --- clean stop within 2 s ------------------------------------------------------
t0=$(date +%s%N)
kill -TERM "$pid"
wait_for_exit "$pid" 2 || fail "ofcd still running 2 s after SIGTERM"
wait "$pid"
rc=$?
t1=$(date +%s%N)
pid=
[ $rc -eq 0 ] || { tail -20 "$log"; fail "exit code $rc after SIGTERM"; }
grep -q 'stopped cleanly' "$log" || fail "no 'stopped cleanly' in the log"
tail -n +2 "$work/notify.txt" | grep -q '^STOPPING=1' ||
    fail "systemd was not told STOPPING=1 after READY: $(cat "$work/notify.txt")"
! ip link show dev "$IFACE" >/dev/null 2>&1 || fail "$IFACE still exists after stop"
pass "SIGTERM: exit 0 in $(( (t1 - t0) / 1000000 )) ms, tap removed"

# The lock is gone: a new instance could start now.
[ ! -e /run/ofcd/ofcd.lock ] || fail "lock file left behind"
pass "lock released"
echo "foundation: all checks passed"
