#!/usr/bin/env bash
# The Kytos flow_manager v2 contract with three OVS bridges connected: every
# endpoint (POST/DELETE flows, flows/{dpid}, flows_by_switch, GET flows,
# stored_flows, /api/v1/switches/{dpid}/flows) and every error status —
# 400 (malformed JSON, wrong types, unknown fields, actions and instructions
# together), 404, 405, 413, 415, 424 and force, 429, 503 with Retry-After.
# What the API says is checked against what the switch holds (ovs-ofctl).
#
# usage: rest_flows.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq

it_setup rest-flows
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
DP1=00:00:00:00:00:00:10:01
DP2=00:00:00:00:00:00:10:02
DP3=00:00:00:00:00:00:10:03

# req METHOD URL [BODY [CONTENT_TYPE]]: status in $code, body in $work/body.
req() {
    local method=$1 url=$2 body=${3-} ct=${4:-application/json} args=()
    [ -n "$body" ] && args=(-H "Content-Type: $ct" --data-binary "$body")
    code=$(curl -s -o "$work/body" -D "$work/headers" -w '%{http_code}' -X "$method" \
        "${args[@]}" "$url") || fail "curl $method $url"
}

# expect STATUS WHAT [DESCRIPTION_SUBSTRING]: the last answer had STATUS,
# and for errors the JSON {code, description} with the substring.
expect() {
    local want=$1 what=$2 sub=${3-}
    [ "$code" = "$want" ] || { cat "$work/body"; fail "$what: status $code, expected $want"; }
    if [ "$want" -ge 400 ]; then
        [ "$(jq -r .code "$work/body")" = "$want" ] || fail "$what: body has no code $want"
        if [ -n "$sub" ]; then
            jq -r .description "$work/body" | grep -qF -- "$sub" ||
                fail "$what: description '$(jq -r .description "$work/body")' lacks '$sub'"
        fi
    fi
    pass "$what → $want${sub:+ ($sub)}"
}

dump() { ovs_dump_flows "$1"; }

# wait_state DPID STATE N SECS: until N stored flows of DPID are in STATE.
wait_state() {
    local dp=$1 st=$2 n=$3 secs=$4 got end=$((SECONDS + $4))
    while :; do
        got=$(curl -s "$FM/stored_flows?dpid=$dp&state=$st" | jq "[.[]? | .[]] | length")
        [ "$got" = "$n" ] && return 0
        [ $SECONDS -ge $end ] && { echo "$got flows of $dp in state $st, expected $n" >&2; return 1; }
        sleep 0.2
    done
}

start_ofcd "$work/ofcd.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --openflow.stats_interval_s=1 \
    --flow_manager.consistency=false --rest.max_body_kb=64
# No switch known yet: "every switch" is nothing (Kytos would say 202).
req POST "$FM/flows" '{"flows": [{"priority": 5}]}'
expect 424 "POST v2/flows before any switch" "no switch is known"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 3 tcp:10.66.0.2:6653 1000 || fail "cannot create bridges"
wait_stat "$work/ofcd.log" "switches_up" 3 30 || fail "bridges did not establish"
for _ in $(seq 50); do
    [ "$(curl -s "$FM/flows" | jq 'length')" = 3 ] && break
    sleep 0.1
done

# ---- POST, both forms, and what the switch then holds --------------------------
F1='{"priority": 100, "cookie": 17, "match": {"in_port": 1, "dl_type": 2048, "nw_dst": "10.1.0.0/16"}, "actions": [{"action_type": "output", "port": 2}]}'
req POST "$FM/flows/$DP1" "{\"flows\": [$F1]}"
expect 202 "POST flows/{dpid} with actions"
[ "$(jq -r .response "$work/body")" = "FlowMod Messages Sent" ] || fail "202 body: $(cat "$work/body")"
wait_state "$DP1" installed 1 10 || fail "the flow did not become installed"
dump br1 | grep >/dev/null 'cookie=0x11, .*priority=100,ip,in_port=1,nw_dst=10.1.0.0/16 actions=output:2' ||
    { dump br1; fail "br1 does not hold the flow as posted"; }
pass "the barrier reply marked it installed and br1 holds it"

F2='{"table_id": 0, "priority": 200, "match": {"dl_vlan": 5}, "instructions": [{"instruction_type": "apply_actions", "actions": [{"action_type": "pop_vlan"}]}, {"instruction_type": "goto_table", "table_id": 3}]}'
req POST "$FM/flows" "{\"flows\": [$F2], \"switches\": [\"$DP2\", \"$DP3\"]}"
expect 202 "POST flows with instructions to two switches"
wait_state "$DP2" installed 1 10 && wait_state "$DP3" installed 1 10 || fail "instructions flow not installed"
dump br3 | grep >/dev/null 'priority=200,dl_vlan=5 actions=pop_vlan,goto_table:3' ||
    { dump br3; fail "br3 does not hold the instructions flow"; }
pass "instructions flow on br2 and br3"

# A re-add with the same match replaces (same id, one stored flow).
F1b='{"priority": 100, "cookie": 17, "match": {"in_port": 1, "dl_type": 2048, "nw_dst": "10.1.0.0/16"}, "actions": [{"action_type": "output", "port": 3}]}'
req POST "$FM/flows/$DP1" "{\"flows\": [$F1b]}"
expect 202 "re-POST same match, new action"
wait_state "$DP1" installed 1 10 || fail "replaced flow not installed"
[ "$(curl -s "$FM/stored_flows?dpid=$DP1" | jq -r ".\"$DP1\"[0].flow.actions[0].port")" = 3 ] ||
    fail "stored flow not replaced"
dump br1 | grep >/dev/null 'actions=output:3' || { dump br1; fail "br1 flow not replaced"; }
pass "same match_id replaces, on the switch too"

# ---- GET --------------------------------------------------------------------------
for _ in $(seq 50); do
    n=$(curl -s "$FM/flows/$DP1" | jq "[.\"$DP1\".flows[] | select(.priority == 100)] | length")
    [ "$n" = 1 ] && break
    sleep 0.2
done
[ "$n" = 1 ] || fail "GET flows/{dpid} does not show the flow from flow stats"
curl -s "$FM/flows/$DP1" | jq -e ".\"$DP1\".flows[] | select(.priority == 100) | .stats.packet_count >= 0 and .match.nw_dst == \"10.1.0.0/16\" and .cookie == 17" >/dev/null ||
    fail "GET flows/{dpid}: entry lacks match/cookie/stats: $(curl -s "$FM/flows/$DP1")"
pass "GET flows/{dpid} shows the switch's flow with stats"
req GET "$FM/flows"
expect 200 "GET flows"
[ "$(jq 'length' "$work/body")" = 3 ] || fail "GET flows lists $(jq length "$work/body") switches"
req GET "$FM/stored_flows?state=installed"
expect 200 "GET stored_flows?state=installed"
[ "$(jq '[.[] | .[]] | length' "$work/body")" = 3 ] || fail "stored installed flows: $(cat "$work/body")"
# stored_flows reads its query as Kytos-ng does: each argument repeatable,
# cookie_range any even count of inclusive pairs, a state without flows
# matches nothing, unknown arguments ignored.
stored_count() {
    req GET "$FM/stored_flows?$1"
    expect 200 "GET stored_flows?$1"
    got=$(jq '[.[] | .[]] | length' "$work/body")
    [ "$got" = "$2" ] || fail "stored_flows?$1: $got flows, not $2: $(cat "$work/body")"
}
stored_count "cookie_range=16&cookie_range=18" 1
stored_count "cookie_range=0&cookie_range=0&cookie_range=16&cookie_range=18" 3
stored_count "cookie_range=1&cookie_range=2&cookie_range=5&cookie_range=6" 0
stored_count "cookie_range=-5&cookie_range=99999999999999999999999" 3
stored_count "state=installed&state=pending" 3
stored_count "state=pending" 0
stored_count "state=bogus" 0
stored_count "dpid=$DP1&dpid=$DP2&state=installed" 2
stored_count "dpid=$DP1&unknown=1&page=2" 1
pass "stored_flows filters by repeated state, dpid and cookie_range pairs; ignores unknown arguments"
req GET "$FM/stored_flows?cookie_range=16"
expect 400 "stored_flows odd cookie_range" "even number"
req GET "$FM/stored_flows?cookie_range=16&cookie_range=abc"
expect 400 "stored_flows non-integer cookie_range" "cookie_range"
req GET "$FM/stored_flows?dpid=zz"
expect 400 "stored_flows bad dpid" "dpid"
req GET "$API/api/v1/switches/$DP2/flows"
expect 200 "GET /api/v1/switches/{dpid}/flows"
[ "$(jq -r '.flows[0].state' "$work/body")" = installed ] || fail "switch flows: $(cat "$work/body")"

# ---- flows_by_switch ------------------------------------------------------------
F3='{"priority": 300, "match": {"dl_type": 2054}, "actions": [{"action_type": "output", "port": "controller"}]}'
req POST "$FM/flows_by_switch" "{\"$DP1\": {\"flows\": [$F3]}, \"$DP2\": {\"flows\": [$F3]}}"
expect 202 "POST flows_by_switch"
wait_state "$DP1" installed 2 10 && wait_state "$DP2" installed 2 10 || fail "flows_by_switch not installed"
req DELETE "$FM/flows_by_switch" "{\"$DP2\": {\"flows\": [{\"match\": {\"dl_type\": 2054}}]}}"
expect 202 "DELETE flows_by_switch"
wait_state "$DP2" installed 1 10 || fail "flows_by_switch delete: store"
for _ in $(seq 50); do dump br2 | grep >/dev/null arp || break; sleep 0.1; done
dump br2 | grep >/dev/null arp && fail "br2 still holds the ARP flow"
dump br1 | grep >/dev/null 'priority=300,arp' || fail "br1 lost its ARP flow"
pass "flows_by_switch delete removed it from br2 only"

# ---- DELETE (non-strict, by match) ----------------------------------------------
req DELETE "$FM/flows/$DP1" '{"flows": [{"match": {"in_port": 1}}]}'
expect 202 "DELETE flows/{dpid} by in_port"
wait_state "$DP1" installed 1 10 || fail "delete did not remove exactly the in_port flow"
for _ in $(seq 50); do dump br1 | grep >/dev/null in_port=1 || break; sleep 0.1; done
dump br1 | grep >/dev/null in_port=1 && fail "br1 still holds the in_port=1 flow"
pass "non-strict DELETE removed the covered flow, kept the other"
req DELETE "$FM/flows" '{"flows": [{"table_id": 255}]}'
expect 202 "DELETE every flow of every switch"
for d in $DP1 $DP2 $DP3; do wait_state "$d" installed 0 10 || fail "$d still has stored flows"; done
for _ in $(seq 50); do [ -z "$(dump br3)" ] && break; sleep 0.1; done
[ -z "$(dump br3)" ] || { dump br3; fail "br3 not empty"; }
pass "DELETE table_id 255 emptied store and switches"
# Kytos-ng keeps deleted flows, state "deleted", and lists them unless a
# state is asked for; ofcd adds deleted_at (= updated_at, the deletion).
stored_count "state=deleted" 5
jq -e '[.[] | .[] | select(.state == "deleted" and .updated_at == .deleted_at and
       (.deleted_at | test("^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T")))] | length == 5' \
    "$work/body" >/dev/null || fail "deleted flows lack state/deleted_at: $(cat "$work/body")"
stored_count "" 5
[ "$(curl -s "$API/api/v1/switches/$DP1/flows" | jq '.flows | length')" = 0 ] ||
    fail "/api/v1/switches/{dpid}/flows lists deleted flows"
pass "deleted flows are kept in state deleted and listed as Kytos-ng lists them"

# ---- errors ----------------------------------------------------------------------------
req POST "$FM/flows/$DP1" '{"flows": [ {"priority": 1'
expect 400 "malformed JSON" "not valid JSON"
req POST "$FM/flows/$DP1" '[1, 2]'
expect 400 "body not an object" "object"
req POST "$FM/flows/$DP1" '{"flows": 5}'
expect 400 "flows of the wrong type" "flows: must be an array"
req POST "$FM/flows/$DP1" '{"flows": []}'
expect 400 "empty flows" "flows: is empty"
req POST "$FM/flows/$DP1" '{"flows": [{}]}'
expect 400 "only empty flows (Kytos: any() of them is false)" "doesn't have any flows"
req DELETE "$FM/flows" '{"flows": [{}, {}]}'
expect 400 "DELETE with only empty flows" "doesn't have any flows"
req POST "$FM/flowz/$DP1" '{"flows": [{"priority": 1}]}'
expect 404 "no such path"
req POST "$FM/flows/$DP1" '{"flowz": []}'
expect 400 "unknown top-level field" "unknown field 'flowz'"
req POST "$FM/flows/$DP1" '{"flows": [{"priority": "high"}]}'
expect 400 "wrong type inside a flow" "flows[0]: wrong type for 'priority'"
req POST "$FM/flows/$DP1" '{"flows": [{"match": {"nw_src": "10.0.0.300"}}]}'
expect 400 "bad match value" "match.nw_src"
req POST "$FM/flows/$DP1" '{"flows": [{"match": {"colour": 1}}]}'
expect 400 "unknown match field" "match.colour"
req POST "$FM/flows/$DP1" '{"flows": [{"actions": [], "instructions": []}]}'
expect 400 "actions and instructions together" "flows[0]"
req POST "$FM/flows/$DP1" '{"flows": [{}], "force": "yes"}'
expect 400 "force not a boolean" "force"
req DELETE "$FM/flows/$DP1" '{"flows": [{"cookie": 17}]}'
expect 400 "DELETE by cookie without cookie_mask (Kytos' rule)" "cookie_mask should be set too"
req POST "$FM/flows/$DP1" '{"flows": [{"cookie": 17, "cookie_mask": 255}]}'
expect 400 "cookie_mask on an add" "cookie_mask"
req POST "$FM/flows/$DP1" '{"flows": [{}]}' text/plain
expect 415 "wrong content type" "application/json"
big=$(head -c 70000 /dev/zero | tr '\0' ' ')
req POST "$FM/flows/$DP1" "{\"flows\": [{}]$big}"
expect 413 "body over rest.max_body_kb" "max_body_kb"
req POST "$FM/flows/00:00:00:00:00:00:99:99" '{"flows": [{"priority": 1}]}'
expect 404 "unknown dpid" "not known"
req POST "$FM/flows/zz" '{"flows": [{"priority": 1}]}'
expect 400 "bad dpid in the path" "dpid"
req PUT "$FM/flows" '{"flows": [{}]}'
expect 405 "PUT on flows"
req POST "$FM/flows_by_switch" '{"00:00:00:00:00:00:10:01": {"flows": [{}], "x": 1}}'
expect 400 "flows_by_switch unknown field" "x"
n=$(curl -s "$FM/stored_flows?state=pending&state=installed&state=error" | jq '[.[] | .[]] | length')
[ "$n" = 0 ] || fail "a rejected request left $n stored flows"
pass "no rejected request stored anything"

# ---- 424 and force ------------------------------------------------------------------
ovs_vsctl del-controller br3
for _ in $(seq 100); do
    [ "$(curl -s "$API/api/v1/switches/$DP3" | jq -r .connected)" = false ] && break
    sleep 0.1
done
req POST "$FM/flows/$DP3" "{\"flows\": [$F3]}"
expect 424 "switch not connected" "not connected"
req POST "$FM/flows/$DP3" "{\"flows\": [$F3], \"force\": true}"
expect 202 "switch not connected, force"
# flows_by_switch takes force in the query, as Kytos-ng does.
req POST "$FM/flows_by_switch" "{\"$DP3\": {\"flows\": [$F3]}}"
expect 424 "flows_by_switch, switch not connected" "not connected"
# Every switch means every known one, as in Kytos: one down is a 424, and
# nothing is stored or sent to the others.
req POST "$FM/flows" '{"flows": [{"priority": 301, "match": {"dl_type": 2054}}]}'
expect 424 "POST v2/flows (all switches), one not connected" "$DP3 is not connected"
[ "$(curl -s "$FM/stored_flows?dpid=$DP1" | jq '[.[][] | select(.flow.priority == 301)] | length')" = 0 ] ||
    fail "the refused all-switch POST stored a flow on $DP1"
req POST "$FM/flows_by_switch?force=yes" "{\"$DP3\": {\"flows\": [$F3]}}"
expect 400 "flows_by_switch?force=yes" "force"
req POST "$FM/flows_by_switch/?force=True" "{\"$DP3\": {\"flows\": [$F3]}}"
expect 202 "flows_by_switch/?force=True, switch not connected"
wait_state "$DP3" pending 1 5 || fail "forced flow not stored pending"
ovs_vsctl set-controller br3 tcp:10.66.0.2:6653
wait_state "$DP3" installed 1 20 || fail "forced flow not installed on reconnect"
dump br3 | grep >/dev/null 'priority=300,arp' || { dump br3; fail "br3 lacks the forced flow"; }
pass "forced flow installed when the switch came back"
# Read whole first: grep -q leaving early would break curl's pipe (pipefail).
metrics=$(curl -s "$API/metrics")
grep -q '^ofcd_flows{state="installed"} 1$' <<<"$metrics" ||
    fail "metrics: $(grep ofcd_flows <<<"$metrics")"
grep -q '^ofcd_rest_requests_total{code="424"} 4$' <<<"$metrics" ||
    fail "metrics do not count the four 424s"
pass "/metrics counts flows by state and answers by status"

# ---- Kytos' aliases and trailing slashes ----------------------------------------------
req POST "$FM/flow_mods/$DP1" '{"flows": [{"priority": 4242, "match": {"in_port": 9},
    "actions": [{"action_type": "output", "port": 1}]}]}'
expect 202 "POST v2/flow_mods/{dpid} (the seed's stress path)"
ovs_wait_flow br1 'priority=4242,in_port=9 ' || fail "flow_mods flow not on br1"
req GET "$FM/stored_flows/?dpid=$DP1"
expect 200 "GET v2/stored_flows/ (trailing slash)"
jq -e "[.\"$DP1\"][0] | map(select(.flow.priority == 4242)) | length == 1" "$work/body" \
    >/dev/null || { cat "$work/body"; fail "stored_flows/ lacks the flow_mods flow"; }
req POST "$FM/delete/$DP1/" '{"flows": [{"priority": 4242, "match": {"in_port": 9}}]}'
expect 202 "POST v2/delete/{dpid}/ (deprecated alias, trailing slash)"
ovs_wait_flow br1 'priority=4242,in_port=9 ' gone || fail "delete alias did not remove the flow"
pass "the deleted flow left br1"

# ---- 64-bit cookies and VLAN 0, as Kytos NApps send them --------------------------------
req POST "$FM/flows/$DP1" '{"flows": [{"priority": 4343, "cookie": 12321848580485677057,
    "match": {"in_port": 7, "dl_vlan": 0}, "actions": [{"action_type": "output", "port": 1}]}]}'
expect 202 "cookie above 2^63 - 1 (of_lldp's 0xab.. tag), dl_vlan 0"
ovs_wait_flow br1 'cookie=0xab00000000000001, priority=4343,in_port=7,vlan_tci=0x0000/0x1fff ' ||
    fail "the 64-bit cookie / untagged flow is not on br1"
pass "OVS holds cookie=0xab00000000000001 and vlan_tci=0x0000/0x1fff (untagged)"
req GET "$FM/stored_flows?dpid=$DP1"
grep -q '"cookie":12321848580485677057[,}]' "$work/body" ||
    { cat "$work/body"; fail "stored_flows does not render the cookie as the integer"; }
req GET "$FM/flows/$DP1"
end=$((SECONDS + 10))
until grep -q '"cookie":12321848580485677057[,}]' "$work/body"; do
    [ $SECONDS -ge $end ] && { cat "$work/body"; fail "GET flows does not render the cookie as the integer"; }
    sleep 0.5
    req GET "$FM/flows/$DP1"
done
pass "stored_flows and GET flows render the cookie as an integer"
req POST "$FM/flows/$DP1" '{"flows": [{"cookie": 18446744073709551616}]}'
expect 400 "cookie above 2^64 - 1" "FlowMod.cookie"
stop_ofcd

# ---- 429 and 503: a rate-limited, tightly paced ofcd ----------------------------------
start_ofcd "$work/ofcd2.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --flow_manager.consistency=false \
    --flow_manager.pacing_per_s=1 --flow_manager.queue_max=16 \
    --rest.rate_limit_per_s=5 --rest.rate_burst=20 --rest.max_flows_per_request=40 \
    --flow_manager.deleted_retention_s=1
wait_stat "$work/ofcd2.log" "switches_up" 3 30 || fail "bridges did not come back"
# Retention 1 s: the flows deleted before the restart are purged.
for _ in $(seq 10); do
    [ "$(curl -s "$FM/stored_flows?state=deleted" | jq '[.[]? | .[]] | length')" = 0 ] && break
    sleep 0.5
done
[ "$(curl -s "$FM/stored_flows?state=deleted" | jq '[.[]? | .[]] | length')" = 0 ] ||
    fail "flows deleted longer than deleted_retention_s ago were not purged"
pass "deleted flows purged after flow_manager.deleted_retention_s"
sleep 0.5
flows=$(for i in $(seq 10); do printf '{"priority": %d},' "$i"; done)
req POST "$FM/flows/$DP2" "{\"flows\": [${flows%,}]}"
expect 202 "10 flows behind a 1/s pacing"
req POST "$FM/flows/$DP2" "{\"flows\": [${flows%,}]}"
expect 503 "over flow_manager.queue_max" "queue_max"
grep -qi '^Retry-After: [0-9]' "$work/headers" || fail "503 without Retry-After"
pass "503 carries Retry-After"
# Deletes are admitted like adds: 16 DELETEs do not fit next to the FLOW_MODs
# still waiting at 1/s (9 a second after the first request, one fewer each
# second), and nothing of the refused delete is done.
live2() { curl -s "$FM/stored_flows?dpid=$DP2&state=pending&state=installed" |
    jq '[.[]? | .[]] | length'; }
stored2=$(live2)
dels=$(for i in $(seq 16); do printf '{"table_id": 0, "priority": %d},' "$i"; done)
req DELETE "$FM/flows/$DP2" "{\"flows\": [${dels%,}]}"
expect 503 "a DELETE of 16 while FLOW_MODs wait, queue_max 16" "queue_max"
[ "$stored2" -ge 10 ] && [ "$(live2)" = "$stored2" ] ||
    fail "the refused DELETE deleted stored flows ($stored2 before, $(live2) after)"
pass "the refused DELETE deleted nothing ($stored2 flows stored)"
# queue_max holds on every request, an empty queue too: 17 can never fit.
stored3=$(curl -s "$FM/stored_flows?dpid=$DP3" | jq "[.[]? | .[]] | length")
flows17=$(for i in $(seq 17); do printf '{"priority": %d},' "$i"; done)
req POST "$FM/flows/$DP3" "{\"flows\": [${flows17%,}]}"
expect 413 "17 flows for a switch with queue_max 16, nothing waiting" "queue_max"
req DELETE "$FM/flows/$DP3" "{\"flows\": [${flows17%,}]}"
expect 413 "a DELETE of 17 for a switch with queue_max 16" "queue_max"
# One body for every switch: 15 flows x 3 switches = 45 > max_flows_per_request 40.
flows15=$(for i in $(seq 15); do printf '{"priority": %d},' "$i"; done)
req POST "$FM/flows" "{\"flows\": [${flows15%,}]}"
expect 413 "a body expanding to 45 changes" "max_flows_per_request"
[ "$(curl -s "$FM/stored_flows?dpid=$DP3" | jq "[.[]? | .[]] | length")" = "$stored3" ] ||
    fail "a refused request stored flows"
pass "nothing of the refused requests was stored"
got429=0
for _ in $(seq 40); do
    req GET "$FM/stored_flows?dpid=$DP2"
    [ "$code" = 429 ] && { got429=1; break; }
done
[ $got429 = 1 ] || fail "no 429 after 40 quick requests at 5/s burst 20"
expect 429 "over rest.rate_limit_per_s" "rate_limit_per_s"
grep -qi '^Retry-After: ' "$work/headers" || fail "429 without Retry-After"
stop_ofcd
pass "rest_flows: all checks passed"
