#!/usr/bin/env bash
# Hostile REST clients must cost the switches and the operator nothing
# (tests/integration/hostile_lib.sh holds the guard: 20 Open vSwitch bridges
# with a 1 s inactivity probe stay connected, a REST POST is installed during
# each attack, ofcd's RSS stays bounded). rest.auth is on. The attacks
# (tests/integration/hostile_rest_peer.py), from loopback addresses:
#   fair     for 20 s, 200 connections from 127.0.0.2 sending 16 MiB bodies
#            without a token and 30 from 127.0.0.3 sending wrong-password
#            logins in a loop; 8 s in, an operator on 127.0.0.1 that ofcd
#            has never seen logs in and POSTs a flow 20 times (0.5 s apart),
#            and a script on 127.0.0.4 POSTs with its token at 250/s: the
#            operator's login and POST each answered within 250 ms at p99
#            (the same operator figures without the attack, from 127.0.0.6,
#            are printed beside them), the script's every POST 202, the
#            guesser checked exactly 5 times, and both attackers shunned
#            (rest.refused_per_s) rather than served.
#   uploads  rounds of 200 connections from one address (127.0.0.5), each
#            the headers of a 16 MiB POST without a token, some sent a byte
#            at a time: the 401 comes before a byte of body is sent (none is
#            read or kept: RSS flat), and the connections beyond
#            rest.max_conns_per_ip (128), and all of them once the address
#            has spent its rest.refused_burst, are closed as accepted
#   spray    one address (127.0.0.9) locks itself out with 5 wrong
#            passwords, then 300 addresses (127.0.1.x, 127.0.2.x) try one
#            wrong password each: the locked address stays locked its whole
#            rest.login_lock_s (30 s here: longer than the fair attack, whose
#            guesser must stay locked; 60 by default), the addresses
#            beyond rest.login_track_max (64 here) are refused (429) rather
#            than free it, and meanwhile an admin on 127.0.0.1 (who logged in
#            before) logs in and gets a POST through in well under a second.
#
# usage: hostile_rest.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
. "$here/hostile_lib.sh"
require_root
require_tool jq
require_tool openssl

# The admin and a scraper's token (for /metrics) exist before ofcd starts.
pre=$(mktemp -d /tmp/ofcd-it-hostile-rest-users.XXXXXX)
it_on_exit "rm -rf '$pre'"
printf 'password1\n' | "$OFCD" user add admin --config "$CONF" --app.data_dir="$pre" >/dev/null ||
    { rm -rf "$pre"; fail "ofcd user add admin"; }
OFCD_METRICS_TOKEN=$(openssl rand -hex 32)
printf 'scraper %s\n' "$OFCD_METRICS_TOKEN" >"$pre/readers"
chmod 600 "$pre/readers"
LOCK_S=30
hostile_setup hostile-rest --rest.auth=true --rest.users_file="$pre/users.json" \
    --rest.reader_tokens_file="$pre/readers" --rest.login_lock_s=$LOCK_S \
    --rest.login_track_max=64
PEER="python3 $here/hostile_rest_peer.py"
LOGIN=$API/api/kytos/core/auth/login/
auth_total() { rest_metric "ofcd_rest_auth_total{what=\"$1\"}"; }

# A script's token, from an address of its own: 127.0.0.1 stays new to ofcd.
[ "$(curl -s --interface 127.0.0.4 -o "$work/login.json" -w '%{http_code}' \
    -u admin:password1 "$LOGIN")" = 200 ] ||
    fail "the admin cannot log in: $(cat "$work/login.json")"
TOKEN=$(jq -r .token "$work/login.json")
HOSTILE_CURL_ARGS="--oauth2-bearer $TOKEN"
pass "rest.auth on; a script logged in from 127.0.0.4"

# ---- an operator new to ofcd while two addresses attack ----------------------------------
OP_DPID=00:00:00:00:00:00:10:01
$PEER operator --bind 127.0.0.6 --password password1 --tries 20 --gap 0.25 --dpid $OP_DPID \
    >"$work/operator-alone.json"
fair_attack() {
    $PEER uploads --bind 127.0.0.2 --conns 200 --limit 128 --slow 20 --duration 20 \
        >"$work/fair-uploads.json" &
    local up=$!
    $PEER hammer --bind 127.0.0.3 --workers 30 --duration 20 >"$work/fair-hammer.json" &
    local ham=$!
    # 8 s in: the attack at its height (its own counters say it is on).
    until [ "$(auth_total conns_shunned)" -gt 0 ] && [ $SECONDS -ge $((t_fair + 8)) ]; do
        [ $SECONDS -lt $((t_fair + 20)) ] || break
        sleep 0.1
    done
    $PEER burst --bind 127.0.0.4 --token "$TOKEN" --rate 250 --duration 4 --dpid $OP_DPID \
        >"$work/fair-burst.json" &
    local bu=$!
    $PEER operator --bind 127.0.0.1 --password password1 --tries 20 --gap 0.5 \
        --dpid $OP_DPID >"$work/operator-attacked.json"
    wait "$bu" "$up" "$ham"
}
failed0=$(auth_total logins_failed)
shunned0=$(auth_total addrs_shunned)
t_fair=$SECONDS
hostile_attack fair 64 fair_attack
op=$(cat "$work/operator-attacked.json")
alone=$(cat "$work/operator-alone.json")
jq -e '.login_status == {"200": 20} and .post_status == {"202": 20}' <<<"$op" >/dev/null ||
    fail "fair: the operator was not let in every time under the attack: $op"
jq -e '.login.p99_ms < 250 and .post.p99_ms < 250' <<<"$op" >/dev/null ||
    fail "fair: the operator waited (p99 login $(jq .login.p99_ms <<<"$op") ms, POST" \
        "$(jq .post.p99_ms <<<"$op") ms; alone $(jq .login.p99_ms <<<"$alone") /" \
        "$(jq .post.p99_ms <<<"$alone") ms): $op"
bu=$(cat "$work/fair-burst.json")
jq -e '.status == {"202": 1000}' <<<"$bu" >/dev/null ||
    fail "fair: the script's 1,000 POSTs with a token at 250/s were not all accepted: $bu"
ham=$(cat "$work/fair-hammer.json")
[ "$(jq '.status["401"] // 0' <<<"$ham")" = 5 ] &&
    [ $(( $(auth_total logins_failed) - failed0 )) = 5 ] ||
    fail "fair: the guesser was checked $(jq '.status["401"] // 0' <<<"$ham") times" \
        "($(( $(auth_total logins_failed) - failed0 )) failures counted), not 5: $ham"
[ "$(auth_total logins_locked)" -gt 0 ] || fail "fair: no locked login counted"
[ $(( $(auth_total addrs_shunned) - shunned0 )) -ge 2 ] && [ "$(auth_total conns_shunned)" -gt 0 ] ||
    fail "fair: the two attackers were not shunned ($(auth_total addrs_shunned) shunned," \
        "$(auth_total conns_shunned) connections closed)"
grep -q 'was refused 200 times at once' "$work/ofcd.log" || fail "fair: no line says who was shunned"
pass "fair: operator new to ofcd, login p50/p99 $(jq .login.p50_ms <<<"$op")/$(jq .login.p99_ms <<<"$op") ms," \
    "POST $(jq .post.p50_ms <<<"$op")/$(jq .post.p99_ms <<<"$op") ms under the attack" \
    "(alone: login $(jq .login.p50_ms <<<"$alone")/$(jq .login.p99_ms <<<"$alone") ms," \
    "POST $(jq .post.p50_ms <<<"$alone")/$(jq .post.p99_ms <<<"$alone") ms); 1,000 POSTs" \
    "at 250/s all 202; the guesser checked 5 times then locked; uploads:" \
    "$(jq -c .kinds "$work/fair-uploads.json"), guesser $(jq -c .status <<<"$ham")"

# ---- 200 unauthenticated 16 MiB uploads from one address ------------------------------
refused0=$(auth_total conns_refused)
mhd_lines0=$(grep -c 'libmicrohttpd: Server reached connection limit' "$work/ofcd.log")
hostile_attack uploads 32 $PEER uploads --bind 127.0.0.5 --conns 200 --limit 128 --slow 20 \
    --duration 10
up=$(tail -n 1 "$work/uploads.out")
jq -e '.kinds.late == 0 and .kinds.continue == 0 and .kinds.other == 0' <<<"$up" >/dev/null ||
    fail "uploads: ofcd waited for or asked for a body: $up"
rounds=$(jq .rounds <<<"$up")
early=$(jq .kinds.early401 <<<"$up")
refused=$(jq .kinds.refused <<<"$up")
# The first rounds are answered; once the address has spent
# rest.refused_burst (200) its connections are closed as accepted.
[ "$rounds" -ge 1 ] && [ $((early + refused)) = $((rounds * 200)) ] && [ "$early" -ge 128 ] ||
    fail "uploads: $early of $((rounds * 200)) got 401 before their body: $up"
[ "$refused" -gt 0 ] && [ "$(auth_total conns_refused)" -gt "$refused0" ] ||
    fail "uploads: no connection over rest.max_conns_per_ip was refused: $up"
lines=$(grep -c 'libmicrohttpd: Server reached connection limit' "$work/ofcd.log")
lines=$((lines - mhd_lines0))
[ "$lines" -le 15 ] ||
    fail "uploads: $lines log lines for $refused refused connections (not rate-limited)"
pass "uploads: $early of $((rounds * 200)) answered 401 from their headers" \
    "(worst $(jq .worst_401_ms <<<"$up") ms), $refused closed as accepted (per-address limit," \
    "then its refusals over rest.refused_per_s)" \
    "($lines log lines)"

# ---- wrong passwords from 300 addresses, one address locked ---------------------------
# The admin's login and POST, timed while the spray keeps the checks busy.
spray_and_admin() {
    $PEER spray --victim 127.0.0.9 --count 300 --workers 32 --lock-s $LOCK_S \
        >"$work/spray.json" &
    local py=$! end=$((SECONDS + 30)) t0 t1 t2 c1 c2 tok
    until [ "$(auth_total logins_failed)" -ge 20 ]; do
        [ $SECONDS -lt $end ] || break
        sleep 0.1
    done
    echo "busy checks when the admin came: $(rest_metric ofcd_rest_auth_checks_running)"
    t0=$(date +%s%N)
    c1=$(curl -s -o "$work/admin-login.json" -w '%{http_code}' -u admin:password1 "$LOGIN")
    t1=$(date +%s%N)
    tok=$(jq -r .token "$work/admin-login.json" 2>/dev/null)
    c2=$(curl -s -o "$work/admin-post.json" -w '%{http_code}' --oauth2-bearer "$tok" \
        -H 'Content-Type: application/json' -d '{"flows": [{"priority": 778, "match":
        {"in_port": 9}, "actions": [{"action_type": "output", "port": 2}]}]}' \
        "$FM/flows/00:00:00:00:00:00:10:01")
    t2=$(date +%s%N)
    echo "$c1 $c2 $(( (t2 - t0) / 1000000 )) $(( (t1 - t0) / 1000000 ))" >"$work/admin.txt"
    wait "$py"
}
failed0=$(auth_total logins_failed)
HOSTILE_POST_AFTER=6 hostile_attack spray 64 spray_and_admin
read -r c1 c2 ms login_ms <"$work/admin.txt"
[ "$c1" = 200 ] && [ "$c2" = 202 ] || fail "spray: the admin's login got $c1, the POST $c2:" \
    "$(cat "$work/admin-login.json" "$work/admin-post.json")"
[ "$ms" -lt 700 ] || fail "spray: the admin's login and POST took $ms ms"
sp=$(cat "$work/spray.json")
jq -e '.victim.locked_status == 429 and .victim.retry_after > 0' <<<"$sp" >/dev/null ||
    fail "spray: 5 failures did not lock 127.0.0.9: $sp"
jq -e '.victim.freed_early_at_s == null and .victim.odd_status == null' <<<"$sp" >/dev/null ||
    fail "spray: the locked address was let in before its $LOCK_S s: $sp"
jq -e --argjson l $LOCK_S '.victim.freed_at_s != null and .victim.freed_at_s >= $l - 1.5' \
    <<<"$sp" >/dev/null || fail "spray: the locked address was never let in again: $sp"
n401=$(jq '.spray["401"] // 0' <<<"$sp")
n429=$(jq '.spray["429"] // 0' <<<"$sp")
[ $((n401 + n429)) = 300 ] && [ "$n429" -gt 0 ] && [ "$n401" -le 64 ] ||
    fail "spray: of 300 addresses $n401 were checked and $n429 refused (table of 64): $sp"
[ "$(auth_total logins_untracked)" -ge "$n429" ] ||
    fail "spray: refusals for a full table not counted"
lines=$(grep -cE "failed login as|login refused" "$work/ofcd.log")
failed=$(( $(auth_total logins_failed) - failed0 ))
[ "$lines" -le 25 ] || fail "spray: $lines log lines for $failed failed logins (not rate-limited)"
pass "spray: 127.0.0.9 stayed locked until $(jq .victim.freed_at_s <<<"$sp") s (lock $LOCK_S s);" \
    "of 300 addresses $n401 checked, $n429 refused (429, table full); the admin logged in" \
    "and POSTed in $ms ms (login $login_ms ms)"

stop_ofcd
pass "clean stop after the attacks"
