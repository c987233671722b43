#!/usr/bin/env bash
# The flow manager against real Open vSwitch bridges:
#  1. 1,000 flows POSTed to each of 10 bridges all appear in ovs-ofctl
#     dump-flows with their match and actions, and the store says installed;
#  2. a flow the switch rejects (output to a group the switch does not have;
#     OVS takes goto_table to any of its 255 tables) ends in state error with
#     the switch's type/code;
#  3. a flow added behind ofcd's back (ovs-ofctl add-flow) is deleted by the
#     consistency check; a stored flow deleted behind its back is re-installed,
#     one whose actions were changed is put back (and none of the 10,000
#     read back from OVS looks changed);
#  4. DELETE removes every flow from store and bridges;
#  5. ofcd SIGKILLed right after its 202s, restarted on fresh bridges (same
#     dpids, empty tables): every accepted flow is still stored and installed;
#  6. the same with flow_manager.durability = group (one disk sync per
#     commit, the commit record synced late): a SIGKILL loses nothing
#     answered either.
#
# usage: ovs_flows.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq
require_tool tshark

it_setup ovs-flows
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
NB=10
NF=1000
dp() { printf '00:00:00:00:00:00:%02x:%02x' $(((0x1000 + $1) >> 8)) $(((0x1000 + $1) & 255)); }

ofcd_args=(--config "$CONF" --apps.topology=false --app.data_dir="$work/var" --app.stats_log_interval_s=0
           --openflow.stats_interval_s=1 --flow_manager.consistency_min_interval_s=2)

dump() { ovs_dump_flows "$1"; }
count_flows() { dump "$1" | grep -c 'priority=' ; }

# flows_json N: N one-table IPv4 flows, nw_dst 10.0.x.y, output to port 5.
flows_json() {
    seq 0 $(($1 - 1)) | awk 'BEGIN { printf "{\"flows\": [" }
        { if (NR > 1) printf ",";
          printf "{\"priority\": 1000, \"cookie\": 4096, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.0.%d.%d\"}, \"actions\": [{\"action_type\": \"output\", \"port\": 5}]}", int($1 / 256), $1 % 256 }
        END { printf "]}" }'
}

start_ofcd "$work/ofcd.log" "${ofcd_args[@]}"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges $NB tcp:10.66.0.2:6653 1000 || fail "cannot create bridges"
wait_stat "$work/ofcd.log" "switches_up" $NB 60 || fail "bridges did not establish"
for _ in $(seq 100); do
    [ "$(curl -s "$FM/flows" | jq '[.[]] | length')" = $NB ] && break
    sleep 0.1
done

# ---- 1. 10 x 1000 flows ------------------------------------------------------------
flows_json $NF >"$work/flows.json"
t0=$(date +%s%N)
pids=()
for i in $(seq $NB); do
    curl -s -o "$work/post$i" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary @"$work/flows.json" "$FM/flows/$(dp "$i")" >"$work/code$i" &
    pids+=($!)
done
wait "${pids[@]}"
for i in $(seq $NB); do
    [ "$(cat "$work/code$i")" = 202 ] || fail "POST to br$i: $(cat "$work/code$i") $(cat "$work/post$i")"
done
t1=$(date +%s%N)
wait_rest_metric 'ofcd_flows{state="installed"}' $((NB * NF)) 60 || fail "not every flow confirmed installed"
t2=$(date +%s%N)
pass "$((NB * NF)) flows: 202s after $(((t1 - t0) / 1000000)) ms, all installed (barrier) after $(((t2 - t0) / 1000000)) ms"
for i in $(seq $NB); do
    n=$(count_flows "br$i")
    [ "$n" = $NF ] || fail "br$i holds $n flows, expected $NF"
done
dump br7 | grep >/dev/null 'cookie=0x1000, .*priority=1000,ip,nw_dst=10.0.3.7 actions=output:5' ||
    { dump br7 | head -3; fail "br7's flows do not read back as posted"; }
pass "every bridge holds its $NF flows with the posted match and actions"

# ---- 2. a flow the switch rejects ---------------------------------------------------
BAD='{"flows": [{"priority": 9, "match": {"dl_type": 2054}, "actions": [{"action_type": "group", "group_id": 77}]}]}'
curl -s -o /dev/null -H 'Content-Type: application/json' --data-binary "$BAD" "$FM/flows/$(dp 1)"
for _ in $(seq 100); do
    e=$(curl -s "$FM/stored_flows?dpid=$(dp 1)&state=error" | jq -c '[.[] | .[]] | .[0].error // empty')
    [ -n "$e" ] && break
    sleep 0.1
done
[ -n "$e" ] || fail "the rejected flow never reached state error"
echo "$e" | jq -e '.type == 2 and .code == 9' >/dev/null ||  # OFPET_BAD_ACTION / BAD_OUT_GROUP
    fail "error recorded as $e, expected OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP"
pass "rejected flow in state error: $(echo "$e" | jq -r .description)"

# ---- 3. consistency: alien and missing -----------------------------------------------
ovs-ofctl -O OpenFlow13 add-flow "unix:$OVS_DIR/br2.mgmt" 'priority=7,ip,nw_src=192.168.9.9,actions=drop'
ovs-ofctl -O OpenFlow13 del-flows --strict "unix:$OVS_DIR/br3.mgmt" 'priority=1000,ip,nw_dst=10.0.0.7'
dump br3 | grep >/dev/null 'nw_dst=10.0.0.7 ' && fail "could not delete a flow behind ofcd's back"
for _ in $(seq 150); do
    gone=0; back=0
    dump br2 | grep >/dev/null 192.168.9.9 || gone=1
    dump br3 | grep >/dev/null 'nw_dst=10.0.0.7 ' && back=1
    [ $gone = 1 ] && [ $back = 1 ] && break
    sleep 0.1
done
[ $gone = 1 ] || fail "the alien flow on br2 is still there after 15 s"
[ $back = 1 ] || fail "the flow deleted from br3 was not re-installed within 15 s"
grep -q "switch 0000000000001002: consistency: deleting alien flow" "$work/ofcd.log" ||
    fail "alien deletion not logged with the dpid"
grep -q "switch 0000000000001003: consistency: re-installing missing flow" "$work/ofcd.log" ||
    fail "re-install not logged with the dpid"
[ "$(count_flows br2)" = $NF ] || fail "br2 lost stored flows while its alien was removed"
# Each mended switch's flight record frozen (issue 51), saying what the
# check did.
for d in 00:00:00:00:00:00:10:02 00:00:00:00:00:00:10:03; do
    for _ in $(seq 100); do
        ofcdctl capture/list | grep -q "^[0-9]* $d .* inconsistent: the check deleted" && break
        sleep 0.1
    done
    id=$(ofcdctl capture/list | awk -v d="$d" '$2 == d && / inconsistent: the check deleted/ {print $1; exit}')
    [ -n "$id" ] || fail "no flight record frozen for $d's mended table: $(ofcdctl capture/list)"
    # The copy holds the check: its flow stats request and the FLOW_MODs.
    ofcdctl capture/save "$d" "$work/mended-$id.pcapng" "$id" >/dev/null ||
        fail "capture/save of $d's copy $id"
    [ "$(tshark -r "$work/mended-$id.pcapng" -Y 'openflow_v4.type == 14' 2>/dev/null | wc -l)" -ge 1 ] ||
        fail "$d's frozen copy $id holds no FLOW_MOD"
done
pass "consistency check removed the alien flow and re-installed the missing one (logged with dpid; each switch's flight record frozen)"
# Ten thousand flows read back through many checks: none may look changed
# (the switch's version must hash like the stored one), until one is.
[ "$(rest_metric 'ofcd_flow_manager_total{what="changed_reinstalled"}')" = 0 ] ||
    fail "flows read back from OVS look changed: $(rest_metric 'ofcd_flow_manager_total{what="changed_reinstalled"}')"
ovs-ofctl -O OpenFlow13 mod-flows --strict "unix:$OVS_DIR/br4.mgmt" \
    'priority=1000,ip,nw_dst=10.0.0.9,actions=output:6'
dump br4 | grep >/dev/null 'nw_dst=10.0.0.9 actions=output:6' || fail "could not change a flow behind ofcd's back"
for _ in $(seq 150); do
    dump br4 | grep >/dev/null 'nw_dst=10.0.0.9 actions=output:5' && break
    sleep 0.1
done
dump br4 | grep >/dev/null 'nw_dst=10.0.0.9 actions=output:5' ||
    fail "the flow changed behind ofcd's back was not put back within 15 s"
[ "$(rest_metric 'ofcd_flow_manager_total{what="changed_reinstalled"}')" = 1 ] ||
    fail "changed_reinstalled = $(rest_metric 'ofcd_flow_manager_total{what="changed_reinstalled"}'), expected 1"
pass "a flow whose actions were changed behind ofcd's back was put back; no false positives"
# Richer flows must read back as the same version too.
VAR='{"flows": [
 {"priority": 2001, "idle_timeout": 300, "cookie": 7, "match": {"dl_type": 2048, "nw_proto": 6, "tp_dst": 80, "in_port": 1}, "actions": [{"action_type": "set_field", "field": "nw_dst", "value": "10.1.1.1"}, {"action_type": "output", "port": 2}]},
 {"priority": 2002, "match": {"dl_vlan": 10}, "instructions": [{"instruction_type": "apply_actions", "actions": [{"action_type": "pop_vlan"}]}, {"instruction_type": "write_metadata", "metadata": 5}, {"instruction_type": "goto_table", "table_id": 2}]},
 {"priority": 2003, "match": {"dl_src": "00:11:22:33:44:55", "dl_dst": "aa:bb:cc:00:00:00/ff:ff:ff:00:00:00"}, "actions": [{"action_type": "push_vlan", "tag_type": "c"}, {"action_type": "set_vlan", "vlan_id": 42}, {"action_type": "output", "port": "in_port"}]},
 {"priority": 2004, "match": {"dl_type": 34525, "ipv6_dst": "2001:db8::/32", "ip_dscp": 46}, "actions": [{"action_type": "set_queue", "queue_id": 1}, {"action_type": "output", "port": "controller"}]},
 {"priority": 2005, "match": {"dl_type": 2054, "arp_op": 1, "arp_tpa": "10.0.0.1"}, "instructions": [{"instruction_type": "write_actions", "actions": [{"action_type": "output", "port": 3}]}]},
 {"priority": 2006, "match": {"dl_type": 2048, "nw_proto": 17, "udp_dst": 53}, "actions": []}
]}'
code=$(curl -s -o "$work/var_post" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$VAR" "$FM/flows/$(dp 5)")
[ "$code" = 202 ] || fail "varied flows: $code $(cat "$work/var_post")"
wait_rest_metric 'ofcd_flows{state="installed"}' $((NB * NF + 6)) 10 ||
    fail "varied flows not installed (OVS rejected one?): $(grep rejected "$work/ofcd.log" | tail -2)"
c0=$(rest_metric 'ofcd_flow_manager_total{what="checks"}')
for _ in $(seq 150); do
    [ "$(rest_metric 'ofcd_flow_manager_total{what="checks"}')" -ge $((c0 + 2 * NB)) ] && break
    sleep 0.1
done
[ "$(rest_metric 'ofcd_flow_manager_total{what="checks"}')" -ge $((c0 + 2 * NB)) ] ||
    fail "the consistency check did not run two rounds in 15 s"
[ "$(rest_metric 'ofcd_flow_manager_total{what="changed_reinstalled"}')" = 1 ] ||
    fail "varied flows read back as changed: $(grep 'differs from' "$work/ofcd.log" | tail -3)"
pass "varied flows (set_field, instructions, masks, IPv6, write_actions, drop) read back unchanged"

# ---- 4. DELETE -------------------------------------------------------------------------
code=$(curl -s -o "$work/del" -w '%{http_code}' -X DELETE -H 'Content-Type: application/json' \
    --data-binary '{"flows": [{"table_id": 255}]}' "$FM/flows")
[ "$code" = 202 ] || fail "DELETE all: $code $(cat "$work/del")"
wait_rest_metric 'ofcd_flows{state="installed"}' 0 30 || fail "store still has installed flows"
wait_rest_metric 'ofcd_flows{state="error"}' 0 5 || fail "store still has the error flow"
for i in $(seq $NB); do
    for _ in $(seq 100); do [ "$(count_flows "br$i")" = 0 ] && break; sleep 0.1; done
    [ "$(count_flows "br$i")" = 0 ] || fail "br$i still holds $(count_flows "br$i") flows"
done
pass "DELETE removed every flow from store and bridges"

# ---- 5. SIGKILL right after the 202s ----------------------------------------------------
# post_one_each N PRIORITY NET OUT: N one-flow POSTs (8 at a time) spread
# over br1-br3, nw_src NET.x.y each; "switch i" of every 202 into OUT.
post_one_each() {
    : >"$4"
    seq 1 "$1" | xargs -P 8 -I{} sh -c '
        i={}; sw=$(( (i % 3) + 1 ))
        body=$(printf "{\"flows\": [{\"priority\": %d, \"match\": {\"dl_type\": 2048, \"nw_src\": \"%s.%d.%d\"}, \"actions\": [{\"action_type\": \"output\", \"port\": 4}]}]}" "$2" "$3" $((i / 256)) $((i % 256)))
        c=$(curl -s -o /dev/null -w "%{http_code}" -H "Content-Type: application/json" --data-binary "$body" "$0/flows/00:00:00:00:00:00:10:0$sw")
        [ "$c" = 202 ] && echo "$sw $i" >>"$1"' "$FM" "$4" "$2" "$3"
}
post_one_each 300 500 172.16 "$work/accepted"
kill -KILL "$OFCD_PID"
wait "$OFCD_PID" 2>/dev/null
OFCD_PID=
n_acc=$(wc -l <"$work/accepted")
[ "$n_acc" -eq 300 ] || fail "only $n_acc of 300 one-flow POSTs got 202"
# Fresh bridges: same dpids, empty tables.
args=()
for i in 1 2 3; do args+=(-- del-br "br$i"); done
ovs_vsctl "${args[@]}" || fail "cannot delete bridges"
ovs_add_bridges 3 tcp:10.66.0.2:6653 1000 || fail "cannot re-create bridges"
start_ofcd "$work/ofcd2.log" "${ofcd_args[@]}"
grep -q "flow manager: 300 stored flows loaded" "$work/ofcd2.log" ||
    fail "restart did not load the 300 accepted flows: $(grep 'flow manager' "$work/ofcd2.log")"
wait_rest_metric 'ofcd_flows{state="installed"}' 300 60 || fail "accepted flows not re-installed after restart"
for i in 1 2 3; do
    want=$(awk -v s=$i '$1 == s' "$work/accepted" | wc -l)
    for _ in $(seq 50); do [ "$(count_flows "br$i")" = "$want" ] && break; sleep 0.1; done
    [ "$(count_flows "br$i")" = "$want" ] || fail "fresh br$i holds $(count_flows "br$i") flows, expected $want"
done
pass "SIGKILL after 300 202s: all 300 survived and were installed on fresh bridges"
stop_ofcd

# ---- 6. durability = group: SIGKILL right after the 202s --------------------------------
start_ofcd "$work/ofcd3.log" "${ofcd_args[@]}" --flow_manager.durability=group
wait_rest_metric ofcd_switches_up $NB 30 || fail "the $NB bridges did not come back"
post_one_each 200 600 172.17 "$work/accepted2"
n_acc=$(wc -l <"$work/accepted2")
[ "$n_acc" -eq 200 ] || fail "only $n_acc of 200 one-flow POSTs got 202 (durability group)"
late=$(rest_metric 'ofcd_store_total{what="meta_syncs"}')
[ "${late:-0}" -ge 1 ] || fail "durability group made no late meta sync (ofcd_store_total{what=\"meta_syncs\"} = ${late:-none})"
kill -KILL "$OFCD_PID"
wait "$OFCD_PID" 2>/dev/null
OFCD_PID=
start_ofcd "$work/ofcd4.log" "${ofcd_args[@]}" --flow_manager.durability=group
grep -q "flow manager: 500 stored flows loaded" "$work/ofcd4.log" ||
    fail "restart did not load 300 + 200 accepted flows: $(grep 'flow manager' "$work/ofcd4.log")"
wait_rest_metric 'ofcd_flows{state="installed"}' 500 60 || fail "not every flow installed after the restart"
pass "durability group: SIGKILL after 200 202s lost none ($late late meta syncs before it)"
stop_ofcd
pass "ovs_flows: all checks passed"
