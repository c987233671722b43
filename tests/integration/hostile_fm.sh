#!/usr/bin/env bash
# xid-top flow stats: a switch that forges the flow manager's statistics
# replies must cost nothing and decide nothing. Next to the 20 Open vSwitch
# bridges of hostile_lib.sh (which must stay connected, a REST POST during
# the attack must be installed, ofcd's RSS bounded), a switch (dpid f00d,
# tests/integration/hostile_peer.py stats-forge) completes the handshake and
# streams flow-statistics reply parts whose xid has the top bit set (the
# control thread's xid space) that nobody asked for: one endless reply
# (REPLY_MORE) and complete ones full of old flows ofcd never stored, some
# even before it answers the flow manager's own request truthfully.
# They are dropped and counted (snapshot_unsolicited in /metrics, a
# rate-limited log line naming the dpid), never kept (snapshot_bytes), never
# shown by GET flows, and no consistency verdict comes from them: the flow
# stored for that switch is neither deleted nor re-installed (the switch
# receives no FLOW_MOD), nothing "alien" is deleted.
#
# usage: hostile_fm.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/hostile_lib.sh"
require_root
require_tool jq

hostile_setup hostile_fm --apps.topology=false
PEER="python3 $here/hostile_peer.py"
DPF=00:00:00:00:00:00:f0:0d
fm_total() { rest_metric "ofcd_flow_manager_total{what=\"$1\"}"; }
# stored_count STATE: stored flows of the forging switch in STATE.
stored_count() { curl -s "$FM/stored_flows?dpid=$DPF&state=$1" | jq '[.[]? | .[]] | length'; }

# The switch first comes as an honest one, and gets a flow stored and
# installed (the one hostile_peer.py's FORGE_STORED says it holds).
$PEER dpid-thief --dpid f00d --duration 6 >"$work/honest.out" 2>&1 &
honest=$!
wait_rest_metric ofcd_switches_up $((N + 1)) 10 || fail "the switch f00d never came up"
code=$(curl -s -o "$work/post.body" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 4242, "match": {"in_port": 7}}]}' "$FM/flows/$DPF")
[ "$code" = 202 ] || { cat "$work/post.body"; fail "POST to f00d got $code"; }
end=$((SECONDS + 10))
until [ "$(stored_count installed)" = 1 ]; do
    [ $SECONDS -ge $end ] && fail "the flow stored for f00d was never installed"
    sleep 0.2
done
wait "$honest"
wait_rest_metric ofcd_switches_up $N 10 || fail "the honest f00d did not leave"
pass "f00d holds one stored, installed flow"

declare -A before
for c in alien_deleted missing_reinstalled changed_reinstalled snapshot_unsolicited; do
    before[$c]=$(fm_total $c)
done
checks_f00d0=$(grep -c 'switch 000000000000f00d: consistency' "$work/ofcd.log")

hostile_attack xid-top-flow-stats 64 $PEER stats-forge --dpid f00d --duration 12

forged=$(grep -o 'forged_parts=[0-9]*' "$work/xid-top-flow-stats.out" | cut -d= -f2)
fmods=$(grep -o 'flow_mods_received=[0-9]*' "$work/xid-top-flow-stats.out" | cut -d= -f2)
# No verdict from them: nothing deleted, nothing re-installed, no FLOW_MOD
# to the forging switch, its stored flow still installed.
[ "${fmods:-1}" = 0 ] || fail "the forging switch received $fmods FLOW_MODs"
for c in alien_deleted missing_reinstalled changed_reinstalled; do
    [ "$(fm_total $c)" = "${before[$c]}" ] ||
        fail "$c went from ${before[$c]} to $(fm_total $c) during the attack"
done
[ "$(grep -c 'switch 000000000000f00d: consistency' "$work/ofcd.log")" = "$checks_f00d0" ] ||
    { grep 'switch 000000000000f00d: consistency' "$work/ofcd.log" | tail -3;
      fail "a consistency verdict about f00d during the attack"; }
[ "$(stored_count installed)" = 1 ] || fail "the flow stored for f00d is no longer installed"
pass "no consistency verdict from the forged parts; f00d received no FLOW_MOD"

unsol=$(( $(fm_total snapshot_unsolicited) - before[snapshot_unsolicited] ))
[ "${forged:-0}" -ge 1000 ] || fail "the peer forged only ${forged:-0} parts"
# Every forged part ofcd read was dropped and counted (it may not have read
# the last ones before the peer left).
[ "$unsol" -ge 1000 ] && [ "$unsol" -le "$forged" ] ||
    fail "snapshot_unsolicited grew by $unsol for $forged forged parts"
pass "$unsol of $forged forged parts dropped and counted (snapshot_unsolicited)"
logged=$(grep -c 'switch 000000000000f00d: flow statistics with xid .*did not ask for' \
    "$work/ofcd.log")
[ "$logged" -ge 1 ] && [ "$logged" -le 100 ] ||
    fail "$logged log lines about the forged parts (want 1..100: named, rate-limited)"
pass "$logged rate-limited log lines name the dpid"

# Never kept: what GET flows shows of f00d is its truthful reply only, and
# all snapshots together stay small.
curl -s "$FM/flows/$DPF" >"$work/flows.json"
jq -e --arg d "$DPF" '[.[$d].flows[]? | .priority] | (index(4242) != null) and
    (map(select(. >= 1111 and . < 1200)) | length == 0)' "$work/flows.json" >/dev/null ||
    { head -c 600 "$work/flows.json"; fail "GET flows of f00d is not its truthful reply"; }
snap=$(rest_metric ofcd_flow_manager_snapshot_bytes)
[ "${snap%.*}" -lt 1048576 ] || fail "snapshots hold $snap bytes after the attack"
pass "GET flows shows f00d's truthful reply only; snapshots hold $snap bytes"

stop_ofcd
pass "clean stop after the attack"
