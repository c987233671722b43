#!/usr/bin/env bash
# Malformed OpenFlow from one switch: every bad message is answered with the
# right OFPT_ERROR, the switch is disconnected (and logged with its dpid) once
# it passes openflow.malformed_limit in a minute, the other switches are not
# touched, and ofcd stops cleanly afterwards (no crash).
#
# usage: of_malformed.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root

it_setup malformed
it_on_exit '[ -n "${bad_pid:-}" ] && kill -KILL "$bad_pid"'

log=$work/ofcd.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --openflow.malformed_limit=8
# One switch sends a malformed message every 50 ms (unknown type, truncated
# body, OXM overrunning its match, wrong version), the others behave.
"$EMU" --controller 10.66.0.2:6653 --switches 1 --dpid-base 0xbad0 --malformed-from 0xbad0 \
    --malformed-every 50 --malformed-kinds type,short,oxm,version --duration 8 --quiet \
    --json "$work/bad.json" >"$work/bad.out" 2>&1 &
bad_pid=$!
"$EMU" --controller 10.66.0.2:6653 --switches 10 --dpid-base 0x600d0 --echo-interval 500 \
    --duration 8 --quiet --json "$work/good.json" >"$work/good.out" 2>&1 ||
    fail "good switches' emulator failed"
wait "$bad_pid"
bad_pid=

python3 - "$work/bad.json" "$work/good.json" <<'PY' || fail "emulator reports"
import json, sys
bad, good = (json.load(open(p)) for p in sys.argv[1:3])
codes = {(e["type"], e["code"]): e["count"] for e in bad["errors_received"]["by_code"]}
print("errors received by the bad switch (type, code): count =", codes)
print("disconnects: bad switch", bad["disconnects"]["total"], "good switches",
      good["disconnects"]["total"])
sent = bad["malformed_sent"]
# Each kind gets its own error: BAD_REQUEST/BAD_TYPE, BAD_REQUEST/BAD_LEN,
# BAD_MATCH/BAD_LEN, BAD_REQUEST/BAD_VERSION (OpenFlow 1.3.5 numbering).
for kind, want in (("type", (1, 1)), ("short", (1, 6)), ("oxm", (4, 1)), ("version", (1, 0))):
    assert sent[kind] > 0, f"no {kind} message sent"
    assert codes.get(want, 0) > 0, f"no error {want} for the {kind} messages"
assert bad["disconnects"]["total"] >= 1, "the bad switch was never disconnected"
assert good["disconnects"]["total"] == 0, "a well-behaved switch was disconnected"
assert good["switches"]["handshaked_at_end"] == 10, "not all good switches up at the end"
PY
pass "bad switch answered with errors and disconnected; 10 good switches untouched"
grep -qE "switch 000000000000bad0 .*malformed" "$log" || fail "no malformed log line with the dpid"
grep -qE "switch 000000000000bad0 disconnected.*malformed" "$log" ||
    fail "no disconnect log line naming the dpid and the reason"
m=$(ofcd_stat "$log" "malformed")
d=$(ofcd_stat "$log" "malformed_disconnects")
[ "$m" -ge 8 ] && [ "$d" -ge 1 ] || fail "counters: malformed=$m malformed_disconnects=$d"
pass "ofcd counted $m malformed messages and $d disconnect(s), logged with the dpid"
stop_ofcd
echo "of_malformed: all checks passed"
