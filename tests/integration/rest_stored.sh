#!/usr/bin/env bash
# stored_flows and /api/v1/switches/{dpid}/flows are streamed from the
# store in pieces (rest/http/rest_stored.c), and GET v2/flows from the
# switches' flow statistics one switch at a time (rest_flowstats.c): 1,200
# flows on two Open vSwitch bridges come back each exactly once, grouped by
# switch, across many pieces, with the filters applied in every piece; a
# client reading a whole answer slowly holds nothing up: flow changes and
# health are answered at once meanwhile.
#
# usage: rest_stored.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq

it_setup rest-stored
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
DP1=00:00:00:00:00:00:10:01
DP2=00:00:00:00:00:00:10:02
ovs_start "$work/ovs" || fail "cannot start Open vSwitch"
start_ofcd "$work/ofcd.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --flow_manager.pacing_per_s=0 --openflow.stats_interval_s=1
ovs_add_bridges 2 tcp:10.66.0.2:6653 1000 || fail "cannot add bridges"
wait_rest_metric ofcd_switches_up 2 30 || fail "the bridges never came up"

# 600 flows per switch, cookie = index, priority = 1000 + index.
for dp in $DP1 $DP2; do
    python3 -c 'import json
print(json.dumps({"flows": [{"priority": 1000 + i, "cookie": i, "match": {"dl_type": 2048,
    "nw_dst": "10.9.%d.%d" % (i // 250, i % 250)}, "actions": [{"action_type": "output",
    "port": 1}]} for i in range(600)]}))' >"$work/body.json"
    code=$(curl -s -o "$work/out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary @"$work/body.json" "$FM/flows/$dp")
    [ "$code" = 202 ] || fail "POST 600 flows to $dp: $code $(cat "$work/out")"
done
wait_rest_metric 'ofcd_flows{state="installed"}' 1200 60 || fail "the 1,200 flows were not installed"

curl -s "$FM/stored_flows" >"$work/all.json" || fail "GET stored_flows failed"
jq -e 'keys == ["'$DP1'", "'$DP2'"]' "$work/all.json" >/dev/null ||
    fail "stored_flows is not grouped by the two switches: $(head -c 300 "$work/all.json")"
jq -e '[.[] | length] == [600, 600]' "$work/all.json" >/dev/null || fail "not 600 + 600 records"
jq -e '[.[] | .[] | .id] | unique | length == 1200' "$work/all.json" >/dev/null ||
    fail "a record came twice (or an id is shared)"
jq -e '[.[] | .[] | .flow.cookie] | sort == ([range(600)] + [range(600)] | sort)' \
    "$work/all.json" >/dev/null || fail "the cookies are not 0..599 on each switch"
pass "stored_flows: 1,200 records across pieces, each once, grouped by switch"

n=$(curl -s "$FM/stored_flows?dpid=$DP2&dpid=$DP1&dpid=$DP2&cookie_range=100&cookie_range=499" |
    jq '[.[] | .[]] | length')
[ "$n" = 800 ] || fail "dpid (repeated) and cookie_range over pieces: $n records, not 800"
n=$(curl -s "$FM/stored_flows?cookie_range=255&cookie_range=256&cookie_range=511&cookie_range=513" |
    jq '[.[] | .[] | .flow.cookie] | sort | join(",")')
[ "$n" = '"255,255,256,256,511,511,512,512,513,513"' ] || fail "filters at piece ends: $n"
curl -s "$API/api/v1/switches/$DP1/flows" >"$work/one.json"
jq -e '.dpid == "'$DP1'" and (.flows | length) == 600 and ([.flows[].state] | unique) == ["installed"]' \
    "$work/one.json" >/dev/null || fail "/api/v1/switches/{dpid}/flows: $(head -c 300 "$work/one.json")"
pass "filters hold in every piece; one switch's flows streamed too"

# GET v2/flows: what the bridges themselves report (their flow statistics).
for _ in $(seq 60); do
    n=$(curl -s "$FM/flows" | jq '[.[] | .flows | length] | add // 0')
    [ "$n" = 1200 ] && break
    sleep 0.25
done
[ "$n" = 1200 ] || fail "GET v2/flows shows $n of the bridges' 1,200 flows"
curl -s "$FM/flows" >"$work/stats.json"
jq -e 'keys == ["'$DP1'", "'$DP2'"] and ([.[] | .flows | map(.cookie) | sort] ==
       [[range(600)], [range(600)]]) and ([.[] | .flows[] | .stats.packet_count >= 0] | all)' \
    "$work/stats.json" >/dev/null || fail "GET v2/flows: $(head -c 300 "$work/stats.json")"
[ "$(curl -s "$FM/flows/$DP2" | jq ".\"$DP2\".flows | length")" = 600 ] ||
    fail "GET v2/flows/{dpid}: not 600 flows"
code=$(curl -s -o /dev/null -w '%{http_code}' "$FM/flows/00:00:00:00:00:00:99:99")
[ "$code" = 404 ] || fail "GET v2/flows/{unknown dpid}: $code"
pass "GET v2/flows: the bridges' 1,200 flows with their statistics, each once, streamed"

# Kytos-ng's order within a switch: priority descending, then updated_at
# ascending. Three flows of one priority, each stored after the previous was
# installed, come in the order they were made, whatever their ids.
jq -e '[.["'$DP1'"][] | .flow.priority] == [range(1599; 999; -1)]' "$work/all.json" >/dev/null ||
    fail "stored_flows not in priority-descending order: $(jq -c '[.["'$DP1'"][] | .flow.priority] | .[:5]' "$work/all.json")"
installed=1200
for port in 3 1 2; do
    code=$(curl -s -o "$work/out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -d '{"flows": [{"priority": 7, "cookie": 9000, "match": {"in_port": '$port'}}]}' "$FM/flows/$DP1")
    [ "$code" = 202 ] || fail "POST priority-7 flow (in_port $port): $code $(cat "$work/out")"
    installed=$((installed + 1))
    wait_rest_metric 'ofcd_flows{state="installed"}' $installed 30 || fail "flow in_port $port not installed"
done
order=$(curl -s "$FM/stored_flows?dpid=$DP1&cookie_range=9000&cookie_range=9000" |
    jq -c '[.[][] | .flow.match.in_port]')
[ "$order" = '[3,1,2]' ] || fail "equal priorities not in updated_at order: $order"
pass "stored_flows in Kytos-ng's order: priority descending, then updated_at ascending"

# cookie_range in a JSON body replaces the query's, values read as Kytos
# reads them (a numeric string; an integer above 2^63-1).
n=$(curl -s -X GET -H 'Content-Type: application/json' \
    -d '{"cookie_range": ["100", 18446744073709551615]}' \
    "$FM/stored_flows?dpid=$DP1&cookie_range=0&cookie_range=1" | jq '[.[] | .[]] | length')
[ "$n" = 503 ] || fail "cookie_range from the body: $n records, not 503 (cookies 100..599, 9000 x3)"
code=$(curl -s -o "$work/out" -w '%{http_code}' -X GET -H 'Content-Type: application/json' \
    -d '{"cookie_range": [1, 2, 3]}' "$FM/stored_flows")
[ "$code" = 400 ] && grep -q 'cookie_range' "$work/out" || fail "odd body cookie_range: $code $(cat "$work/out")"
code=$(curl -s -o "$work/out" -w '%{http_code}' -X GET -H 'Content-Type: application/json' \
    -d '{"cookie_range": [1, ' "$FM/stored_flows")
[ "$code" = 400 ] && grep -q 'decode json' "$work/out" || fail "bad JSON body: $code $(cat "$work/out")"
pass "stored_flows reads cookie_range from a JSON body, as Kytos-ng does"

# Clients taking whole answers at 32 KB/s (about ten seconds) hold no lock and
# no reader: a POST and health are answered at once meanwhile.
curl -s --limit-rate 32k "$FM/flows" -o "$work/slow_stats.json" &
slow_stats=$!
curl -s --limit-rate 32k "$FM/stored_flows" -o "$work/slow.json" &
slow=$!
sleep 0.5
kill -0 $slow 2>/dev/null || fail "the slow read finished within half a second: the test proves nothing"
t0=$(date +%s%N)
code=$(curl -s -o "$work/out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 5, "match": {"in_port": 2}}]}' "$FM/flows/$DP1")
t1=$(date +%s%N)
[ "$code" = 202 ] || fail "POST during the slow read: $code"
[ $(((t1 - t0) / 1000000)) -lt 1000 ] || fail "POST took $(((t1 - t0) / 1000000)) ms during the slow read"
curl -sf "$API/api/v1/health" >/dev/null || fail "health failed during the slow read"
kill -0 $slow 2>/dev/null || fail "the slow read ended before the POST was answered"
wait $slow || fail "the slow read failed"
wait $slow_stats || fail "the slow read of GET v2/flows failed"
jq -e '[.[] | .[]] | length >= 1200' "$work/slow.json" >/dev/null || fail "the slow answer is not whole"
jq -e '[.[] | .flows | length] | add >= 1200' "$work/slow_stats.json" >/dev/null ||
    fail "the slow GET v2/flows answer is not whole"
pass "a slow reader of a long answer holds nothing up (POST in $(((t1 - t0) / 1000000)) ms)"

# A cookie above 2^63 (NApps tag the top byte) is found by cookie_range and
# comes back as the same bare number, as the client wrote the flow (with its
# own spacing); a flow sent pretty-printed is stored and listed like any.
BIG=12297829382473034410        # 0xaaaaaaaaaaaaaaaa
code=$(curl -s -o "$work/out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"flows": [ {"priority": 77,
          "cookie": '$BIG',
          "match": {"in_port": 3}} ]}' "$FM/flows/$DP2")
[ "$code" = 202 ] || fail "POST of a flow with cookie $BIG: $code $(cat "$work/out")"
# (python: jq 1.6 reads numbers as doubles)
got=$(curl -s "$FM/stored_flows?dpid=$DP2&cookie_range=9223372036854775808&cookie_range=18446744073709551615" |
    python3 -c 'import json, sys
print(json.dumps([[f["flow"]["priority"], f["flow"]["cookie"], f["flow"]["match"]["in_port"]]
                  for v in json.load(sys.stdin).values() for f in v], separators=(",", ":")))')
[ "$got" = "[[77,$BIG,3]]" ] || fail "cookie_range above 2^63 lists $got, not [[77,$BIG,3]]"
pass "a cookie above 2^63 is found by cookie_range and comes back as the number sent"
stop_ofcd
pass "rest_stored: all checks passed"
