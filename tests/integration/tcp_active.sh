#!/usr/bin/env bash
# Active open: ofcd connects out to a listening kernel peer (the way it will
# reach OVS bridges configured with "ptcp:"), echoes what the peer sends, and
# reconnects with backoff after every close and while the peer refuses.
#
# usage: tcp_active.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_test_services

it_setup active
it_on_exit '[ -n "${peer_pid:-}" ] && kill -KILL "$peer_pid"'

log=$work/ofcd.log
# ofcd first: nobody listens yet, so its first attempts are refused.
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --tcp.echo_connect=10.66.0.1:7100 --tcp.connect_backoff_min_ms=100 \
    --tcp.connect_backoff_max_ms=800
wait_stat "$log" "failures" 2 10 ge || fail "no refused attempts counted before the peer listens"
pass "attempts refused while nobody listens (RST → backoff)"

python3 "$here/kernel_listener.py" 10.66.0.1 7100 4 200000 2 2.5 60 >"$work/peer.out" 2>&1 &
peer_pid=$!
wait "$peer_pid"
rc=$?
peer_pid=
cat "$work/peer.out" | sed 's/^/  peer: /'
[ $rc -eq 0 ] || fail "kernel peer: rounds failed"
pass "4 connections opened by ofcd, 200 KB echoed on each, reconnected after each close"

wait_stat "$log" "established" 4 5 ge || fail "connector did not count 4 established connections"
est=$(ofcd_stat "$log" "established") || fail "no connector stats"
fails=$(ofcd_stat "$log" "failures")
[ "$fails" -ge 3 ] || fail "connector failures $fails: the 2.5 s pause should add refusals"
pass "connector: established=$est, failed attempts=$fails (incl. the paused listener)"
stop_ofcd
echo "tcp_active: all checks passed"
