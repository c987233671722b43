#!/usr/bin/env bash
# Groups and meters against a real Open vSwitch bridge (ovs-ofctl as the
# independent reader):
#  1. groups (all, select, fast_failover) and a meter POSTed to
#     /api/v1/switches/{dpid}/groups|meters are on the bridge as sent
#     (dump-groups, dump-meters) and say "installed" once their barrier came;
#     a flow naming the group and the meter installs after them;
#  2. one the switch refuses (a meter band it does not have) says "error"
#     with the switch's type/code;
#  3. the bridge restarted empty (ovs-vswitchd killed, started again): every
#     stored one is laid again, and the flow that names them with them;
#  4. the consistency check: a group and a meter added behind ofcd's back
#     are deleted, a stored group deleted behind its back is laid again, and
#     what OVS lists of ofcd's own never reads as changed (no MODIFY loop);
#  5. ofcd restarted: they are still stored, and a bridge that kept them
#     (its ADD refused as existing) ends holding the stored versions;
#  6. DELETE removes one from the store and the bridge; 404 after;
#  7. bad bodies get a 400 naming the field, other methods a 405.
#
# usage: ovs_groups.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq

it_setup ovs-groups
API=http://127.0.0.1:8181
SW=$API/api/v1/switches/0000000000001001
FM=$API/api/kytos/flow_manager/v2

ofcd_args=(--config "$CONF" --apps.topology=false --app.data_dir="$work/var"
           --app.stats_log_interval_s=0 --openflow.stats_interval_s=1
           --flow_manager.consistency_min_interval_s=2)
ofctl() { ovs-ofctl -O OpenFlow13 "$1" "unix:$OVS_DIR/br1.mgmt" "${@:2}"; }

# post PATH BODY: the status, the answer in $work/answer.
post() {
    curl -s -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "$2" "$1"
}

# wait_state KIND ID STATE: until GET says so (10 s).
wait_state() {
    local end=$((SECONDS + 10)) s
    while :; do
        s=$(curl -s "$SW/$1/$2" | jq -r .state)
        [ "$s" = "$3" ] && return 0
        [ $SECONDS -ge $end ] && { echo "$1/$2 is '$s', expected '$3'" >&2; return 1; }
        sleep 0.1
    done
}

# wait_dump CMD TEXT [gone]: until ovs-ofctl CMD shows TEXT (or no longer does).
wait_dump() {
    local end=$((SECONDS + 10))
    while :; do
        if ofctl "$1" | grep -qF -- "$2"; then
            [ -z "${3:-}" ] && return 0
        elif [ -n "${3:-}" ]; then
            return 0
        fi
        [ $SECONDS -ge $end ] && { ofctl "$1" >&2; return 1; }
        sleep 0.1
    done
}

start_ofcd "$work/ofcd.log" "${ofcd_args[@]}"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 1 tcp:10.66.0.2:6653 1000 || fail "cannot create the bridge"
wait_stat "$work/ofcd.log" "switches_up" 1 60 || fail "the bridge did not establish"

# ---- 1. laid and confirmed -----------------------------------------------------------
G_ALL='{"group_id": 1, "type": "all", "buckets": [{"actions": [{"action_type": "output", "port": 5}]}, {"actions": [{"action_type": "output", "port": 6}]}]}'
G_FF='{"group_id": 2, "type": "fast_failover", "buckets": [{"watch_port": 5, "actions": [{"action_type": "output", "port": 5}]}, {"watch_port": 6, "actions": [{"action_type": "push_vlan", "tag_type": "s"}, {"action_type": "set_vlan", "vlan_id": 300}, {"action_type": "output", "port": 6}]}]}'
G_SEL='{"group_id": 3, "type": "select", "buckets": [{"weight": 10, "actions": [{"action_type": "output", "port": 5}]}, {"weight": 20, "actions": [{"action_type": "output", "port": 6}]}]}'
M_1='{"meter_id": 1, "flags": ["kbps", "burst", "stats"], "bands": [{"type": "drop", "rate": 10000, "burst_size": 1000}]}'
for g in "$G_ALL" "$G_FF" "$G_SEL"; do
    c=$(post "$SW/groups" "$g")
    [ "$c" = 202 ] || fail "POST group: $c $(cat "$work/answer")"
done
c=$(post "$SW/meters" "$M_1")
[ "$c" = 202 ] || fail "POST meter: $c $(cat "$work/answer")"
[ "$(jq -c . "$work/answer")" = '{"meter_id":1,"state":"pending"}' ] ||
    fail "POST meter answered $(cat "$work/answer")"
for id in 1 2 3; do wait_state groups $id installed || fail "group $id not confirmed"; done
wait_state meters 1 installed || fail "meter 1 not confirmed"
groups=$(ofctl dump-groups)
grep -q 'group_id=1,type=all,bucket=actions=output:5,bucket=actions=output:6' <<<"$groups" ||
    fail "group 1 not on the bridge as sent: $groups"
grep -q 'group_id=2,type=ff,bucket=watch_port:5,actions=output:5,bucket=watch_port:6,actions=push_vlan:0x88a8,set_field:4396->vlan_vid,output:6' <<<"$groups" ||
    fail "group 2 not on the bridge as sent: $groups"
grep -q 'group_id=3,type=select,bucket=weight:10,actions=output:5,bucket=weight:20,actions=output:6' <<<"$groups" ||
    fail "group 3 not on the bridge as sent: $groups"
meters=$(ofctl dump-meters)
grep -q 'meter=1 kbps burst stats bands=' <<<"$meters" && grep -q 'type=drop rate=10000 burst_size=1000' <<<"$meters" ||
    fail "meter 1 not on the bridge as sent: $meters"
[ "$(curl -s "$SW/groups" | jq -c '[.groups[] | [.group_id, .type, .state]]')" = \
  '[[1,"all","installed"],[2,"fast_failover","installed"],[3,"select","installed"]]' ] ||
    fail "GET groups: $(curl -s "$SW/groups")"
pass "3 groups and a meter on the bridge as sent (dump-groups, dump-meters), confirmed installed"

FLOW='{"flows": [{"priority": 100, "match": {"in_port": 1}, "instructions": [{"instruction_type": "meter", "meter_id": 1}, {"instruction_type": "apply_actions", "actions": [{"action_type": "group", "group_id": 2}]}]}]}'
c=$(post "$FM/flows/00:00:00:00:00:00:10:01" "$FLOW")
[ "$c" = 202 ] || fail "POST flow: $c $(cat "$work/answer")"
wait_rest_metric 'ofcd_flows{state="installed"}' 1 10 || fail "the flow naming group 2 and meter 1 was not installed"
ovs_wait_flow br1 'in_port=1 actions=meter:1,group:2' || fail "the flow is not on the bridge"
pass "a flow naming the group and the meter installed"

# ---- 2. refused --------------------------------------------------------------------
# Open vSwitch's user-space meters have drop bands only.
c=$(post "$SW/meters" '{"meter_id": 9, "bands": [{"type": "dscp_remark", "rate": 100, "prec_level": 1}]}')
[ "$c" = 202 ] || fail "POST meter 9: $c $(cat "$work/answer")"
wait_state meters 9 error || fail "meter 9 (a band the bridge lacks) not in error"
err=$(curl -s "$SW/meters/9" | jq -c .error)
[ "$(jq .type <<<"$err")" = 12 ] && [ -n "$(jq -r .reason <<<"$err")" ] || fail "meter 9's error: $err"
pass "a meter the bridge refuses: error $(jq -r .reason <<<"$err")"
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$SW/meters/9")
[ "$c" = 200 ] || fail "DELETE meter 9: $c"

# ---- 3. the bridge restarted empty ---------------------------------------------------
ovs_kill_vswitchd
ovs_start_vswitchd || fail "cannot restart ovs-vswitchd"
wait_dump dump-groups 'group_id=2,type=ff' || fail "group 2 not laid again on the restarted bridge"
wait_dump dump-groups 'group_id=3,type=select' || fail "group 3 not laid again"
wait_dump dump-meters 'meter=1 kbps' || fail "meter 1 not laid again"
ovs_wait_flow br1 'in_port=1 actions=meter:1,group:2' || fail "the flow naming them not installed again"
for id in 1 2 3; do wait_state groups $id installed || fail "group $id not confirmed again"; done
pass "the restarted bridge got every group, the meter and the flow naming them back"

# ---- 4. the check --------------------------------------------------------------------
ofctl add-group 'group_id=77,type=all,bucket=actions=output:1'
ofctl add-meter 'meter=78 kbps bands=type=drop rate=500'
ofctl del-groups 'group_id=3'
c0=$(ctl_counter gm_checks)
wait_dump dump-groups 'group_id=77,' gone || fail "the alien group 77 was not deleted"
wait_dump dump-meters 'meter=78' gone || fail "the alien meter 78 was not deleted"
wait_dump dump-groups 'group_id=3,type=select' || fail "group 3, deleted behind ofcd's back, not laid again"
wait_state groups 3 installed || fail "group 3 not confirmed again"
wait_stat "$work/ofcd.log" gm_checks $((c0 + 8)) 30 ge || fail "the check did not run again"
[ "$(ctl_counter gm_changed_relaid)" = 0 ] ||
    fail "ofcd's own groups or meters read back as changed: gm_changed_relaid=$(ctl_counter gm_changed_relaid)"
[ "$(ctl_counter gm_alien_deleted)" = 2 ] && [ "$(ctl_counter gm_missing_relaid)" = 1 ] ||
    fail "gm_alien_deleted=$(ctl_counter gm_alien_deleted) gm_missing_relaid=$(ctl_counter gm_missing_relaid), expected 2 and 1"
ovs_wait_flow br1 'in_port=1 actions=meter:1,group:2' || fail "the flow naming them went"
pass "the check: an alien group and meter deleted, a missing group laid again, nothing of ofcd's read as changed over 4 checks"

# ---- 5. ofcd restarted; the bridge kept them, one changed behind ofcd's back ----------
stop_ofcd
ofctl mod-group 'group_id=1,type=all,bucket=actions=output:7'
start_ofcd "$work/ofcd2.log" "${ofcd_args[@]}"
wait_stat "$work/ofcd2.log" "switches_up" 1 60 || fail "the bridge did not come back to ofcd"
for id in 1 2 3; do wait_state groups $id installed || fail "group $id not confirmed after ofcd's restart"; done
wait_state meters 1 installed || fail "meter 1 not confirmed after ofcd's restart"
wait_dump dump-groups 'group_id=1,type=all,bucket=actions=output:5,' ||
    fail "group 1, changed behind ofcd's back, not put back"
[ "$(ctl_counter gm_fallbacks)" -ge 4 ] || fail "the kept ones were not sent as MODIFY: gm_fallbacks=$(ctl_counter gm_fallbacks)"
# Those GROUP_EXISTS / METER_EXISTS answers are the fallback's, not faults:
# the flight recorder froze no copy for them.
curl -s "$SW/captures" | jq -e '[.captures[] | select(.kind == "error")] | length == 0' >/dev/null ||
    fail "the fallback's OFPT_ERRORs froze flight-record copies: $(curl -s "$SW/captures")"
# A flow naming a meter the bridge lacks is a fault: frozen (Open vSwitch
# answers METER_MOD_FAILED/INVALID_METER; a switch may answer UNKNOWN_METER,
# the fallback's code, which the copy's filter tells apart by the refused
# request's type).
c=$(post "$FM/flows/00:00:00:00:00:00:10:01" '{"flows": [{"priority": 200, "match": {"in_port": 2}, "instructions": [{"instruction_type": "meter", "meter_id": 55}, {"instruction_type": "apply_actions", "actions": [{"action_type": "output", "port": 3}]}]}]}')
[ "$c" = 202 ] || fail "POST a flow naming meter 55: $c $(cat "$work/answer")"
frozen() { curl -s "$SW/captures" | jq -e '[.captures[] | select(.kind == "error" and
    (.reason | test("type 12 code")))] | length == 1' >/dev/null; }
end=$((SECONDS + 10))
until frozen; do
    [ $SECONDS -lt $end ] || fail "a flow refused for its missing meter froze no copy: $(curl -s "$SW/captures")"
    sleep 0.1
done
pass "after ofcd's restart: 3 groups and the meter still stored, the bridge's kept copies brought in line (MODIFY), no copy frozen for it; one frozen for a flow naming a missing meter"

# ---- 6. DELETE -------------------------------------------------------------------------
c=$(curl -s -o "$work/answer" -w '%{http_code}' -X DELETE "$SW/groups/3")
[ "$c" = 200 ] || fail "DELETE group 3: $c $(cat "$work/answer")"
wait_dump dump-groups 'group_id=3,' gone || fail "group 3 still on the bridge"
c=$(curl -s -o /dev/null -w '%{http_code}' "$SW/groups/3")
[ "$c" = 404 ] || fail "GET of a deleted group: $c"
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$SW/groups/3")
[ "$c" = 404 ] || fail "DELETE of a deleted group: $c"
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$SW/meters/1")
[ "$c" = 200 ] || fail "DELETE meter 1: $c"
wait_dump dump-meters 'meter=1' gone || fail "meter 1 still on the bridge"
pass "DELETE removes a group and a meter from the store and the bridge"

# ---- 7. bad requests ---------------------------------------------------------------------
expect_400() {
    local c
    c=$(post "$1" "$2")
    [ "$c" = 400 ] && grep -q -- "$3" "$work/answer" || fail "POST $2: $c $(cat "$work/answer"), expected a 400 naming $3"
}
expect_400 "$SW/groups" '{"group_id": 1, "type": "all", "buckets": [{"actions": [{"action_type": "output", "port": "x"}]}]}' 'buckets\[0\].actions\[0\].port'
expect_400 "$SW/groups" '{"group_id": 1}' "missing field 'type'"
expect_400 "$SW/meters" '{"meter_id": 1, "bands": [{"type": "drop", "rate": 0}]}' 'bands\[0\].rate'
expect_400 "$SW/meters" '{"meter_id": 1' 'not JSON'
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$SW/groups")
[ "$c" = 405 ] || fail "DELETE on the list: $c"
c=$(curl -s -o /dev/null -w '%{http_code}' "$SW/groups/x")
[ "$c" = 400 ] || fail "GET groups/x: $c"
c=$(curl -s -o /dev/null -w '%{http_code}' "$SW/colours")
[ "$c" = 404 ] || fail "GET colours: $c"
[ "$(curl -s "$SW/groups" | jq -c '[.groups[].group_id]')" = '[1,2]' ] || fail "refused requests changed the groups"
pass "bad bodies: 400 naming the field; wrong methods 405; nothing changed"

stop_ofcd
echo "ovs_groups: all checks passed"
