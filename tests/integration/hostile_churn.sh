#!/usr/bin/env bash
# dpid churn (issue 25): switches that make up a new dpid on every
# connection must not grow ofcd, nor slow down the real ones — topology on,
# so neither through the LLDP flow each switch is given.
#
# Next to the hostile guard (hostile_lib.sh: 20 Open vSwitch bridges with a
# 1 s inactivity probe stay connected, a REST POST made during the attack
# is installed, ofcd's RSS bounded) and one emulated switch that came up
# before the attack, the switch emulator's churn attack (ofswitch-emu
# --attack churn: a fresh random dpid per connection, a full handshake with
# a 4,096-port PORT_DESC, gone at SET_CONFIG, back at once without backoff)
# runs from $CHURNERS connections for $DURATION s, with
# openflow.max_switches_known = $CAP so the bound is reached at once.
# Throughout, sampled every half second:
#   - the worker's and the control view's switches_known never pass $CAP;
#     churned records were evicted, and new dpids were refused while every
#     record was a live switch's (counted, logged once per 10 s);
#   - GET /api/v1/switches answers 200 within 1 s;
#   - ofcd's RSS stays within the guard's bound and flat over the second
#     half of the attack (it grows over the first: the DPDK pools' pages are
#     touched for the first time as their buffers cycle — 40-50 MiB
#     measured, in /memfd:nohuge, malloc's heap flat — while before the
#     bound each made-up switch kept its 4,096 ports, 240 KiB, for an hour);
# and the emulated real switch stays connected, its echo round trip (every
# 100 ms, as the switch measures it) p99 under $ECHO_P99_MS ms.
#
# usage: hostile_churn.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/hostile_lib.sh"
require_root
require_tool jq

CAP=32              # records: the 21 real switches and 11 more
CHURNERS=16         # connections churning at once: more than the 11 free records
DURATION=60         # the issue's minute
ECHO_P99_MS=200
GET_MAX_S=1
RSS_MAX_MB=96       # the guard's bound over the whole attack, pool warm-up included
RSS_FLAT_MB=16      # growth allowed over the attack's second half

# Topology on: each switch that comes up gets an LLDP flow stored, so a
# made-up dpid must take its flow with it when the view lets it go (else
# the store and the flow manager grow by one switch per connection).
hostile_setup hostile_churn --openflow.max_switches_known=$CAP --apps.topology=true

# The real switch the attack must not touch: up before the attack (its
# record is a live switch's, never evicted), echo every 100 ms, gone by
# itself when the attack ends.
"$EMU" --controller 10.66.0.2:6653 --switches 1 --dpid-base 0x2001 --ports 4 \
    --echo-interval 100 --echo-timeout 1000 --duration $((DURATION + 3)) --quiet \
    --json "$work/good.json" >"$work/good.out" 2>&1 &
good=$!
it_on_exit "kill $good"
wait_rest_metric ofcd_switches_up $((N + 1)) 15 || fail "the emulated real switch never came up"
pass "an emulated real switch up next to the $N bridges"

# Every half second until $work/stop: GET /api/v1/switches (status, time),
# both switches_known gauges, RSS (KiB).
sample() {
    local t0=$SECONDS code_time
    while [ ! -e "$work/stop" ]; do
        code_time=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 \
            "$API/api/v1/switches")
        echo "$((SECONDS - t0)) $code_time $(rest_metric ofcd_switches_known)" \
            "$(rest_metric 'ofcd_openflow_worker_switches_known{lcore="0"}') $(rss_kb)" \
            >>"$work/samples"
        sleep 0.5
    done
}

churn() {
    "$EMU" --controller 10.66.0.2:6653 --attack churn --switches $CHURNERS --ports 4096 \
        --connect-rate 0 --echo-interval 0 --duration $DURATION --quiet \
        --json "$work/churn.json"
}

sample &
sampler=$!
it_on_exit "kill $sampler"
hostile_attack dpid-churn $RSS_MAX_MB churn
touch "$work/stop"
wait "$sampler"
wait "$good"

# The attack attacked: made-up switches came and went, and the bound acted.
churned=$(jq .attack.messages_sent "$work/churn.json")
[ "$churned" -ge 500 ] || fail "the churn made only $churned switches in $DURATION s"
evicted=$(rest_metric 'ofcd_openflow_worker_total{lcore="0",what="switches_evicted"}')
refused=$(rest_metric 'ofcd_openflow_worker_total{lcore="0",what="switches_refused"}')
view_evicted=$(rest_metric 'ofcd_switches_total{what="evicted"}')
[ "${evicted%.*}" -gt 0 ] && [ "${view_evicted%.*}" -gt 0 ] ||
    fail "no record evicted at the bound (worker $evicted, view $view_evicted)"
[ "${refused%.*}" -gt 0 ] || fail "no new dpid refused while every record was live"
lines=$(grep -c 'refused: openflow.max_switches_known' "$work/ofcd.log")
[ "$lines" -le $((DURATION / 10 + 2)) ] ||
    fail "$lines refusal lines in $DURATION s: not once per 10 s"
# What is stored stays within what the view holds: an LLDP flow per
# switch it knows (at most CAP) and the flow the guard POSTed.
records=$(ofcdctl store/stats | awk '$1 == "records" {print $2}')
[ "${records:-0}" -ge $((N + 1)) ] && [ "$records" -le $((CAP + 1)) ] ||
    fail "$records flows stored after $churned made-up switches; at most $((CAP + 1)) (CAP LLDP flows and the guard's)"
pass "$records flows stored after the churn: the made-up switches took their LLDP flows with them"
pass "$churned made-up switches in $DURATION s ($(jq .connect.handshakes "$work/churn.json")" \
    "handshakes): worker evicted $evicted and refused $refused ($lines log lines)," \
    "view evicted $view_evicted"

# Bounded throughout.
samples=$(wc -l <"$work/samples")
[ "$samples" -ge $DURATION ] || fail "only $samples samples in $DURATION s"
max_known=$(awk '{ if ($4 > m) m = $4; if ($5 > m) m = $5 } END { print m + 0 }' "$work/samples")
[ "$max_known" -le $CAP ] || fail "switches_known reached $max_known, over the bound $CAP"
bad=$(awk -v max=$GET_MAX_S '$2 != 200 || $3 >= max' "$work/samples" | head -3)
[ -z "$bad" ] || fail "GET /api/v1/switches slow or failed (t code seconds ...): $bad"
get_max=$(awk '{ if ($3 > m) m = $3 } END { printf "%.3f", m }' "$work/samples")
pass "switches_known at most $max_known (bound $CAP) in $samples samples;" \
    "GET /api/v1/switches always 200, slowest ${get_max} s (bound $GET_MAX_S s)"
# RSS over the second half of the attack: what the bound keeps, it keeps
# flat (a leak would grow with every made-up switch).
read -r rss_mid rss_end < <(awk -v h=$((DURATION / 2)) -v e=$DURATION \
    '$1 >= h && !m { m = $6 } $1 <= e { l = $6 } END { print m + 0, l + 0 }' "$work/samples")
[ $(((rss_end - rss_mid) / 1024)) -lt $RSS_FLAT_MB ] ||
    fail "RSS grew from $((rss_mid / 1024)) to $((rss_end / 1024)) MiB in the attack's second half"
pass "RSS $((rss_mid / 1024)) MiB at $((DURATION / 2)) s, $((rss_end / 1024)) MiB at the end"

# The real switch: never disconnected, its echo answered fast.
[ "$(jq .disconnects.total "$work/good.json")" -le 1 ] &&
    [ "$(jq .disconnects.echo_timeout "$work/good.json")" = 0 ] &&
    [ "$(jq .disconnects.peer_closed "$work/good.json")" = 0 ] ||
    fail "the real switch was disconnected: $(jq -c .disconnects "$work/good.json")"
p99=$(jq '.times_us.echo_rtt.p99 / 1000' "$work/good.json")
echoes=$(jq .times_us.echo_rtt.count "$work/good.json")
[ "$echoes" -ge $((DURATION * 5)) ] || fail "the real switch measured only $echoes echoes"
awk -v p="$p99" -v max=$ECHO_P99_MS 'BEGIN { exit !(p < max) }' ||
    fail "the real switch's echo RTT p99 $p99 ms (bound $ECHO_P99_MS ms)"
pass "the real switch stayed up: $echoes echoes, RTT p50" \
    "$(jq '.times_us.echo_rtt.p50 / 1000' "$work/good.json") ms, p99 $p99 ms," \
    "max $(jq '.times_us.echo_rtt.max / 1000' "$work/good.json") ms"

stop_ofcd
pass "clean stop after the churn"
