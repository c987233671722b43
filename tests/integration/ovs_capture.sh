#!/usr/bin/env bash
# The flight recorder (issue 51) against Open vSwitch, checked by tshark as
# an independent decoder: one bridge connects; a flow is POSTed (its
# FLOW_MOD and BARRIER), a port appears (PORT_STATUS), echoes go both ways;
# `ofcdctl capture/save` writes the switch's record as a pcapng file. tshark
# decodes it as OpenFlow 1.3, and each direction's message types and xids
# are those tshark saw live on the tap for the same session, in the same
# order. GET /api/v1/switches/{dpid}/capture gives the same record. Frozen
# copies (capture/list): an OFPT_ERROR (a flow OVS refuses) freezes one
# that holds it, capture/freeze one, and when the bridge goes a copy is
# frozen for the disconnect while the live record stays, saying the
# connection is over. A datapath id nobody knows is a clear error. Last, the
# record saved first is replayed (ofswitch-replay) against a fresh ofcd:
# it stores and sends the flow the first one did at connect (the
# topology's LLDP flow), byte for byte, and holds it installed.
#
# usage: ovs_capture.sh OFCD_BINARY CONFIG_FILE OFSWITCH_REPLAY
set -uo pipefail
OFCD=$1
CONF=$2
REPLAY=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool tshark
require_tool jq

it_setup capture
API=http://127.0.0.1:8181
DPID=00:00:00:00:00:00:10:01
log=$work/ofcd.log
# Echoes both ways: OVS's after 5 s without a message from ofcd (its
# inactivity probe: OVS makes anything shorter 5 s), ofcd's every 6 s busy
# or not (its RTT probe); no statistics polls to keep OVS from idling.
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --openflow.recorder_kb=64 --openflow.rtt_probe_ms=6000 --openflow.stats_interval_s=0

# tshark on the tap's kernel side sees the session as OVS and ofcd spoke it.
tshark -i ofc0 -f "tcp port 6653" -w "$work/live.pcapng" >"$work/tshark.out" 2>&1 &
TSHARK_PID=$!
it_on_exit "kill $TSHARK_PID"
wait_for_line "$work/tshark.out" "Capturing on" 20 || fail "tshark did not start capturing"

ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 1 tcp:10.66.0.2:6653 5000 || fail "cannot create the bridge"
wait_stat "$log" "switches_up" 1 30 || fail "the switch did not establish"

code=$(curl -s -o "$work/post" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary '{"flows": [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.0.0.9"}, "actions": [{"action_type": "output", "port": 1}]}]}' \
    "$API/api/kytos/flow_manager/v2/flows/$DPID")
[ "$code" = 202 ] || fail "flow POST: $code $(cat "$work/post")"
ovs_wait_flow br1 "nw_dst=10.0.0.9" || fail "the flow did not reach the bridge"
ovs_vsctl add-port br1 cap0 -- set interface cap0 type=internal ofport_request=7 ||
    fail "cannot add a port"
# Until the control thread has the port's PORT_STATUS and an echo each
# way: one of ofcd's answered (its samples) and one of OVS's answered here.
until_shown() {   # until_shown WHAT REGEX: switch/show's text matches within 20 s
    local end=$((SECONDS + 20))
    until ofcdctl switch/show "$DPID" 2>/dev/null | grep -Eq "$2"; do
        [ $SECONDS -lt $end ] || fail "$1: $(ofcdctl switch/show "$DPID" 2>&1 | head -20)"
        sleep 0.1
    done
}
until_shown "no PORT_STATUS for the new port" 'events: port_status [1-9]'
until_shown "no echo of ofcd's answered" 'echo rtt: .* [1-9][0-9]* samples'
end=$((SECONDS + 20))
until [ "$(ctl_counter echo_inline 2>/dev/null || echo 0)" -ge 1 ]; do
    [ $SECONDS -lt $end ] || fail "no echo request from OVS answered within 20 s"
    sleep 0.1
done

ofcdctl capture/save "$DPID" "$work/rec.pcapng" >"$work/save.out" 2>&1 ||
    fail "capture/save: $(cat "$work/save.out")"
grep -q "connection open" "$work/save.out" || fail "capture/save said: $(cat "$work/save.out")"
grep -q " 0 pushed out" "$work/save.out" || fail "the record lost messages: $(cat "$work/save.out")"
[ "$(stat -c %a "$work/rec.pcapng")" = 600 ] || fail "the capture file is not mode 600"
pass "capture/save: $(head -1 "$work/save.out" | cut -c1-160)"

# The switch's end of its connection, as the record names it: the live
# capture holds every connection to port 6653 (a bridge reconnecting, any
# other switch), the record one.
sw_port=$(tshark -r "$work/rec.pcapng" -Y "tcp.dstport == 6653" -T fields -e tcp.srcport \
    2>/dev/null | head -1)
[ -n "$sw_port" ] || fail "the record names no switch port"

# A last FLOW_MOD after the record was taken: once tshark has written it,
# it has written everything the record holds (the wire's order).
flow_mods() { tshark -r "$1" -Y "openflow_v4.type == 14 && tcp.port == $sw_port" 2>/dev/null | wc -l; }
want=$(( $(flow_mods "$work/rec.pcapng") + 1 ))
code=$(curl -s -o "$work/post2" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary '{"flows": [{"priority": 100, "match": {"dl_type": 2048, "nw_dst": "10.0.0.10"}, "actions": [{"action_type": "output", "port": 1}]}]}' \
    "$API/api/kytos/flow_manager/v2/flows/$DPID")
[ "$code" = 202 ] || fail "the marker flow's POST: $code $(cat "$work/post2")"
end=$((SECONDS + 20))
until [ "$(flow_mods "$work/live.pcapng")" -ge "$want" ]; do
    [ $SECONDS -lt $end ] || fail "tshark did not write the marker FLOW_MOD within 20 s"
    sleep 0.2
done
kill -INT "$TSHARK_PID"
wait_for_exit "$TSHARK_PID" 10 || fail "tshark did not stop"
others=$(tshark -r "$work/live.pcapng" -Y "tcp.dstport == 6653 && tcp.srcport != $sw_port" \
    -T fields -e tcp.srcport 2>/dev/null | sort -u | tr '\n' ' ')
[ -z "$others" ] || echo "the wire also held connections from ports $others(left out)"

# type xid per message, one direction at a time; a TCP segment with several
# messages (tshark lists them with commas) gives a line each.
seq_of() {   # seq_of FILE DIRECTION(to|from)
    local filt
    [ "$2" = to ] && filt="tcp.dstport == 6653 && tcp.srcport == $sw_port" ||
        filt="tcp.srcport == 6653 && tcp.dstport == $sw_port"
    # A segment sent again (a slow ofcd under ThreadSanitizer acknowledges
    # late) carries messages already counted: the stream's, once each.
    filt+=" && !tcp.analysis.retransmission && !tcp.analysis.fast_retransmission"
    filt+=" && !tcp.analysis.spurious_retransmission"
    tshark -r "$1" -Y "openflow_v4 && $filt" -T fields -E separator=' ' \
        -e openflow_v4.type -e openflow_v4.xid 2>/dev/null |
        awk '{n = split($1, t, ","); split($2, x, ","); for (i = 1; i <= n; i++) print t[i], x[i]}'
}
for d in to from; do
    seq_of "$work/rec.pcapng" $d >"$work/rec.$d"
    seq_of "$work/live.pcapng" $d >"$work/live.$d"
    n=$(wc -l <"$work/rec.$d")
    [ "$n" -ge 5 ] || fail "the record holds $n messages $d ofcd"
    head -n "$n" "$work/live.$d" | diff - "$work/rec.$d" >"$work/diff.$d" ||
        fail "the record's messages $d ofcd differ from the wire's: $(head -20 "$work/diff.$d")"
done
types_to=$(awk '{print $1}' "$work/rec.to" | sort -un | tr '\n' ' ')
types_from=$(awk '{print $1}' "$work/rec.from" | sort -un | tr '\n' ' ')
for t in 0 2 3 6 12 19 21; do
    echo " $types_to " | grep -q " $t " || fail "no message of type $t from the switch in the record ($types_to)"
done
for t in 0 2 3 5 14 18 20; do
    echo " $types_from " | grep -q " $t " || fail "no message of type $t from ofcd in the record ($types_from)"
done
pass "tshark decodes the record as OpenFlow 1.3: $(wc -l <"$work/rec.to") messages from the switch (types $types_to), $(wc -l <"$work/rec.from") from ofcd (types $types_from), each way as on the wire"

# The same record over REST, as the dashboard downloads it.
code=$(curl -s -o "$work/rest.pcapng" -D "$work/rest.h" -w '%{http_code}' \
    "$API/api/v1/switches/$DPID/capture")
[ "$code" = 200 ] || fail "GET .../capture: $code $(head -c 300 "$work/rest.pcapng")"
grep -qi '^Content-Type: application/x-pcapng' "$work/rest.h" || fail "capture type: $(cat "$work/rest.h")"
grep -qi '^Content-Disposition: attachment; filename="ofcd-0000000000001001.pcapng"' \
    "$work/rest.h" || fail "capture disposition: $(cat "$work/rest.h")"
for d in to from; do
    seq_of "$work/rest.pcapng" $d >"$work/rest.$d"
    n=$(wc -l <"$work/rec.$d")
    head -n "$n" "$work/rest.$d" | diff - "$work/rec.$d" >/dev/null ||
        fail "the REST capture's messages $d ofcd do not start with the saved one's"
done
pass "GET /api/v1/switches/$DPID/capture: the same record, a pcapng download"

# Frozen copies (capture/list): until LINE-REGEX is listed, within 20 s;
# its id.
frozen_id() {   # frozen_id WHAT REGEX
    local end=$((SECONDS + 20)) id
    until id=$(ofcdctl capture/list 2>/dev/null | awk -v re="$2" '$0 ~ re {print $1; exit}') &&
        [ -n "$id" ]; do
        [ $SECONDS -lt $end ] || fail "$1: $(ofcdctl capture/list 2>&1 | head -20)"
        sleep 0.1
    done
    echo "$id"
}
# An OFPT_ERROR freezes a copy that holds it: a flow OVS refuses (a group
# it has not: OFPET_BAD_ACTION, OFPBAC_BAD_OUT_GROUP).
code=$(curl -s -o "$work/post3" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary '{"flows": [{"priority": 9, "match": {"dl_type": 2054}, "actions": [{"action_type": "group", "group_id": 77}]}]}' \
    "$API/api/kytos/flow_manager/v2/flows/$DPID")
[ "$code" = 202 ] || fail "the refused flow's POST: $code $(cat "$work/post3")"
id=$(frozen_id "no copy frozen for the OFPT_ERROR" "^[0-9]+ $DPID .* error: OFPT_ERROR type 2 code 9")
ofcdctl capture/save "$DPID" "$work/err.pcapng" "$id" >"$work/save3.out" 2>&1 ||
    fail "capture/save of frozen copy $id: $(cat "$work/save3.out")"
grep -q "frozen capture $id (error: OFPT_ERROR type 2 code 9" "$work/save3.out" ||
    fail "frozen copy $id said: $(cat "$work/save3.out")"
n_err=$(tshark -r "$work/err.pcapng" -Y "openflow_v4.type == 1 && openflow_v4.error.type == 2" \
    2>/dev/null | wc -l)
[ "$n_err" -ge 1 ] || fail "frozen copy $id does not hold the OFPT_ERROR"
grep -q "flight record frozen as capture $id (error" "$log" || fail "the freeze was not logged"
pass "an OFPT_ERROR froze copy $id, which holds it: $(head -1 "$work/save3.out" | cut -c1-140)"
# The same copy over REST, byte for byte; a bad id is a 400 naming the
# parameter, an unknown one a 404.
code=$(curl -s -o "$work/err_rest.pcapng" -w '%{http_code}' "$API/api/v1/switches/$DPID/capture?frozen=$id")
[ "$code" = 200 ] || fail "GET .../capture?frozen=$id: $code $(head -c 300 "$work/err_rest.pcapng")"
cmp -s "$work/err.pcapng" "$work/err_rest.pcapng" || fail "REST's frozen copy $id differs from ofcdctl's"
code=$(curl -s -o "$work/bad" -w '%{http_code}' "$API/api/v1/switches/$DPID/capture?frozen=x1")
[ "$code" = 400 ] && grep -q "frozen: 'x1'" "$work/bad" || fail "?frozen=x1: $code $(cat "$work/bad")"
code=$(curl -s -o "$work/bad" -w '%{http_code}' "$API/api/v1/switches/$DPID/capture?frozen=4000000")
[ "$code" = 404 ] || fail "?frozen=4000000: $code $(cat "$work/bad")"
pass "GET .../capture?frozen=$id: the same copy; a bad id 400, an unknown one 404"

# Asked: capture/freeze. An id that is not this switch's, or none: errors.
ofcdctl capture/freeze "$DPID" >"$work/freeze.out" 2>&1 || fail "capture/freeze: $(cat "$work/freeze.out")"
asked=$(frozen_id "capture/freeze froze nothing" "^[0-9]+ $DPID .* asked: ")
out=$(ofcdctl capture/save 00:00:00:00:00:00:99:99 "$work/none.pcapng" "$asked" 2>&1) &&
    fail "another switch's frozen copy was served: $out"
echo "$out" | grep -q "another switch" || fail "a frozen copy of another dpid: $out"
out=$(ofcdctl capture/save "$DPID" "$work/none.pcapng" 4000000 2>&1) &&
    fail "an unknown frozen copy was served: $out"
echo "$out" | grep -q "no frozen capture has that id" || fail "an unknown id: $out"
[ ! -e "$work/none.pcapng" ] || fail "a file was written for a frozen copy not served"
pass "capture/freeze froze copy $asked; wrong ids refused"

# The bridge goes: the record stays, and says the connection is over; a
# copy is frozen for the disconnect.
ovs_vsctl del-br br1 || fail "cannot delete the bridge"
wait_stat "$log" "switches_up" 0 30 || fail "the switch did not go down"
gone=$(frozen_id "no copy frozen for the disconnect" "^[0-9]+ $DPID .* disconnect: ")
ofcdctl capture/save "$DPID" "$work/gone.pcapng" "$gone" >"$work/save4.out" 2>&1 ||
    fail "capture/save of the disconnect's copy: $(cat "$work/save4.out")"
grep -q "connection over" "$work/save4.out" || fail "the disconnect's copy: $(cat "$work/save4.out")"
[ "$(tshark -r "$work/gone.pcapng" -Y openflow_v4 2>/dev/null | wc -l)" -ge 5 ] ||
    fail "the disconnect's copy decodes to few frames"
pass "the disconnect froze copy $gone: $(head -1 "$work/save4.out" | cut -c1-120)"
# The switch's frozen copies over REST, as the dashboard lists them.
code=$(curl -s -o "$work/list.json" -w '%{http_code}' "$API/api/v1/switches/$DPID/captures")
[ "$code" = 200 ] || fail "GET .../captures: $code $(cat "$work/list.json")"
kinds=$(jq -r '[.captures[] | "\(.id):\(.kind)"] | join(" ")' "$work/list.json")
[ "$kinds" = "$id:error $asked:asked $gone:disconnect" ] ||
    fail "GET .../captures lists $kinds: $(cat "$work/list.json")"
jq -e '.captures[0].bytes > 0 and (.captures[0].time | test("^20[0-9-]+T[0-9:]+Z$"))' \
    "$work/list.json" >/dev/null || fail "a frozen copy's entry: $(jq -c '.captures[0]' "$work/list.json")"
pass "GET .../captures: $kinds"
ofcdctl capture/save "$DPID" "$work/after.pcapng" >"$work/save2.out" 2>&1 ||
    fail "capture/save after the disconnect: $(cat "$work/save2.out")"
grep -q "connection over" "$work/save2.out" || fail "after the disconnect: $(cat "$work/save2.out")"
n_after=$(tshark -r "$work/after.pcapng" -Y openflow_v4 2>/dev/null | wc -l)
[ "$n_after" -ge "$(( $(wc -l <"$work/rec.to") / 2 ))" ] ||
    fail "the record after the disconnect decodes to $n_after frames"
pass "after the disconnect the record stays: $(head -1 "$work/save2.out" | cut -c1-120)"

# A peer that never comes up (a HELLO, then gone) has no dpid: the log
# names its connection, and its record is asked by that.
/usr/bin/python3 - <<'PY' || fail "the half-open peer could not talk to ofcd"
import socket
s = socket.create_connection(("10.66.0.2", 6653), timeout=10)
s.sendall(bytes([4, 0, 0, 8, 0, 0, 0, 7]))      # HELLO, xid 7
hello = s.recv(8)                                # ofcd's HELLO
assert len(hello) == 8 and hello[1] == 0, hello
s.close()
PY
wait_for_line "$log" "closed before FEATURES" 20 || fail "the half-open peer's close was not logged"
conn=$(grep -o "connection 0x[0-9a-f]* from 10.66.0.1:[0-9]* closed before FEATURES" "$log" |
    tail -1 | awk '{print $2}')
[ -n "$conn" ] || fail "no connection handle in: $(grep "closed before FEATURES" "$log")"
ofcdctl capture/save "$conn" "$work/halfopen.pcapng" >"$work/save5.out" 2>&1 ||
    fail "capture/save $conn: $(cat "$work/save5.out")"
grep -q "ofcd flight record: connection $conn from 10.66.0.1:[0-9]*, connection over" "$work/save5.out" ||
    fail "capture/save $conn said: $(cat "$work/save5.out")"
hellos=$(tshark -r "$work/halfopen.pcapng" -Y "openflow_v4.type == 0" -T fields -e openflow_v4.xid \
    2>/dev/null | sort -n | tr '\n' ' ')
echo "$hellos" | grep -q "^7 \| 7 " || fail "the peer's HELLO (xid 7) is not in its record: '$hellos'"
out=$(ofcdctl capture/save 0xzz "$work/none.pcapng" 2>&1) && fail "a bad handle was taken"
echo "$out" | grep -q "is not a connection" || fail "a bad handle: $out"
pass "a peer that never came up, by its logged connection $conn: its HELLO in the record"

out=$(ofcdctl capture/save 00:00:00:00:00:00:99:99 "$work/none.pcapng" 2>&1) &&
    fail "capture/save of an unknown switch succeeded"
echo "$out" | grep -q "no switch" || fail "unknown switch: $out"
[ ! -e "$work/none.pcapng" ] || fail "a file was written for an unknown switch"
pass "an unknown switch: $out"

# The replay: the switch's side of the first record against a fresh ofcd.
stop_ofcd
log=$work/ofcd2.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var2" --app.stats_log_interval_s=0 \
    --openflow.recorder_kb=64 --openflow.stats_interval_s=0
"$REPLAY" --controller 10.66.0.2:6653 --hold-ms 3000 "$work/rec.pcapng" >"$work/replay.json" \
    2>"$work/replay.err" || fail "ofswitch-replay: $(cat "$work/replay.err") $(cat "$work/replay.json")"
jq -e '.replies_matched >= 3 and .live_flow_mods >= 1 and
       .live_flow_mods_recorded == .live_flow_mods and .peer_closed == false' \
    "$work/replay.json" >/dev/null || fail "the replay: $(cat "$work/replay.json")"
code=$(curl -s -o "$work/stored.json" -w '%{http_code}' \
    "$API/api/kytos/flow_manager/v2/stored_flows?dpid=$DPID")
[ "$code" = 200 ] || fail "stored_flows after the replay: $code $(cat "$work/stored.json")"
lldp=$(jq -r --arg d "$DPID" '[.[$d][] | select(.flow.match.dl_type == 35020)] | .[0].state // empty' \
    "$work/stored.json")
[ "$lldp" = installed ] ||
    fail "after the replay the LLDP flow is '$lldp': $(jq -c . "$work/stored.json" | cut -c1-400)"
pass "the record replayed against a fresh ofcd: $(jq -c . "$work/replay.json"); its LLDP flow stored and installed"

stop_ofcd
echo "ovs_capture: all checks passed"
