#!/usr/bin/env bash
# The event stream's promise to the others when one client stops reading:
# a GET /api/v1/events client that never reads (small socket buffers) is cut
# off once its queue of rest.events_queue_kb fills, with a counter and a log
# line, while a client that reads hears every flow.installed of thousands of
# one-flow POSTs to emulated switches, and the POSTs never fail.
# (events_slow_client.py does the clients and the POSTs.)
#
# usage: rest_events_cut.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root

it_setup events-cut
API=http://127.0.0.1:8181
N=4
log=$work/ofcd.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --flow_manager.pacing_per_s=0 --rest.events_queue_kb=4
"$EMU" --controller 10.66.0.2:6653 --switches $N --connect-rate 0 --dpid-base 4096 \
    --duration 300 --quiet >"$work/emu.out" 2>&1 &
it_on_exit "kill -INT $!"
wait_stat "$log" "switches_up" $N 30 || fail "the emulated switches did not establish"

dpids=$(for i in $(seq 0 $((N - 1))); do printf '%016x,' $((4096 + i)); done)
out=$(python3 "$here/events_slow_client.py" "$API" "${dpids%,}" 2>&1) || fail "$out"
echo "$out"
pass "a client that never reads was cut off; the one that reads heard every flow installed"
grep -q "event stream client 127.0.0.1:[0-9]* cut off" "$log" || {
    grep -i 'event' "$log" | tail -5
    fail "no log line for the client cut off"
}
pass "the cut off is logged"
stop_ofcd
echo "rest_events_cut: all checks passed"
