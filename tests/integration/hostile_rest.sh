#!/usr/bin/env bash
# Hostile REST clients must cost the switches and the operator nothing
# (tests/integration/hostile_lib.sh holds the guard: 20 Open vSwitch bridges
# with a 1 s inactivity probe stay connected, a REST POST is installed during
# each attack, ofcd's RSS stays bounded). rest.auth is on. The attacks
# (tests/integration/hostile_rest_peer.py), from loopback addresses:
#   uploads  rounds of 200 connections from one address (127.0.0.5), each
#            the headers of a 16 MiB POST without a token, some sent a byte
#            at a time: the 401 comes before a byte of body is sent (none is
#            read or kept: RSS flat), and the connections beyond
#            rest.max_conns_per_ip (128) are closed as they are accepted
#   spray    one address (127.0.0.9) locks itself out with 5 wrong
#            passwords, then 300 addresses (127.0.1.x, 127.0.2.x) try one
#            wrong password each: the locked address stays locked its whole
#            rest.login_lock_s (20 s here; 60 by default), the addresses
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
LOCK_S=20
hostile_setup hostile-rest --rest.auth=true --rest.users_file="$pre/users.json" \
    --rest.reader_tokens_file="$pre/readers" --rest.login_lock_s=$LOCK_S \
    --rest.login_track_max=64
PEER="python3 $here/hostile_rest_peer.py"
LOGIN=$API/api/kytos/core/auth/login/
auth_total() { rest_metric "ofcd_rest_auth_total{what=\"$1\"}"; }

[ "$(curl -s -o "$work/login.json" -w '%{http_code}' -u admin:password1 "$LOGIN")" = 200 ] ||
    fail "the admin cannot log in: $(cat "$work/login.json")"
HOSTILE_CURL_ARGS="--oauth2-bearer $(jq -r .token "$work/login.json")"
pass "rest.auth on; the admin logged in from 127.0.0.1"

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
[ "$rounds" -ge 1 ] && [ $((early + refused)) = $((rounds * 200)) ] &&
    [ "$early" -ge $((rounds * 100)) ] ||
    fail "uploads: $early of $((rounds * 200)) got 401 before their body: $up"
[ "$refused" -gt 0 ] && [ "$(auth_total conns_refused)" -gt "$refused0" ] ||
    fail "uploads: no connection over rest.max_conns_per_ip was refused: $up"
lines=$(grep -c 'libmicrohttpd: Server reached connection limit' "$work/ofcd.log")
lines=$((lines - mhd_lines0))
[ "$lines" -le 15 ] ||
    fail "uploads: $lines log lines for $refused refused connections (not rate-limited)"
pass "uploads: $early of $((rounds * 200)) answered 401 from their headers" \
    "(worst $(jq .worst_401_ms <<<"$up") ms), $refused closed over the per-address limit" \
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
