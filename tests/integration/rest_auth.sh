#!/usr/bin/env bash
# Authentication on the REST API, Kytos-ng's way (rest.auth): users added
# with `ofcd user add`; GET /api/kytos/core/auth/login/ with Basic
# credentials gives a JWT; every other route refuses (401, with
# WWW-Authenticate) no token, a malformed one, one signed with another key
# and an expired one; a reader's token may GET but not change (403). The
# listen policy: a non-loopback rest.listen without rest.auth, or with it
# over plain HTTP, stops start-up unless rest.allow_insecure. Failed logins
# are limited per address.
#
# usage: rest_auth.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_tool jq

it_setup rest-auth
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
LOGIN=$API/api/kytos/core/auth/login/
C=(--config "$CONF" --app.data_dir="$work/var")

# ---- the listen policy ---------------------------------------------------------------
out=$("$OFCD" "${C[@]}" --rest.listen=0.0.0.0:8181 --check 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "is not loopback: set rest.auth = true" <<<"$out" ||
    fail "open non-loopback listen: exit $rc, '$out'"
out=$("$OFCD" "${C[@]}" --rest.listen=0.0.0.0:8181 --rest.auth=true --check 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "rest.auth is on over plain HTTP: passwords and tokens would cross" <<<"$out" ||
    fail "login over plain HTTP off loopback: exit $rc, '$out'"
"$OFCD" "${C[@]}" --rest.listen=0.0.0.0:8181 --rest.auth=true --rest.tls_cert=/x.crt \
    --rest.tls_key=/x.key --print-config >/dev/null 2>&1 ||
    fail "non-loopback listen with rest.auth and HTTPS refused"
out=$("$OFCD" "${C[@]}" --rest.listen=0.0.0.0:8181 --rest.allow_insecure=true --check 2>&1) ||
    fail "rest.allow_insecure did not allow it: $out"
grep -q "ANYONE WHO REACHES IT" <<<"$out" || fail "rest.allow_insecure is not logged loudly: $out"
out=$("$OFCD" "${C[@]}" --rest.listen=0.0.0.0:8181 --rest.auth=true --rest.allow_insecure=true \
    --check 2>&1) || fail "rest.allow_insecure did not allow plain HTTP: $out"
grep -q "PASSWORDS AND TOKENS CROSS THE NETWORK IN CLEAR" <<<"$out" ||
    fail "plain HTTP with rest.allow_insecure is not logged loudly: $out"
pass "a non-loopback listen needs rest.auth over HTTPS (or rest.allow_insecure, logged loudly)"

# ---- users ------------------------------------------------------------------------------
printf 'password1\n' | "$OFCD" user add alice "${C[@]}" >/dev/null || fail "user add alice"
printf 'password2\n' | "$OFCD" user add rita --role reader "${C[@]}" >/dev/null ||
    fail "user add rita --role reader"
printf 'short\n' | "$OFCD" user add bob "${C[@]}" >/dev/null 2>&1 && fail "a 5-character password was taken"
printf 'password3\n' | "$OFCD" user add 'b b' "${C[@]}" >/dev/null 2>&1 && fail "a name with a blank was taken"
[ "$(stat -c %a "$work/var/users.json")" = 600 ] || fail "users.json is not mode 600"
grep -q password1 "$work/var/users.json" && fail "a password is stored in clear"
pass "ofcd user add: admin and reader, bad names and short passwords refused, mode 600, hashed"

# Static reader tokens (a scraper's): mode 600 or start-up stops.
scrape=$(openssl rand -hex 32)
printf '# scrapers\nprometheus %s\n' "$scrape" >"$work/readers"
chmod 644 "$work/readers"
"$OFCD" "${C[@]}" --rest.auth=true --rest.reader_tokens_file="$work/readers" >"$work/r.log" 2>&1 &&
    fail "a world-readable reader_tokens_file was accepted"
grep -q "rest.reader_tokens_file = $work/readers: readable by others" "$work/r.log" ||
    fail "no reason given for the tokens file's mode: $(cat "$work/r.log")"
chmod 600 "$work/readers"
start_ofcd "$work/ofcd.log" "${C[@]}" --app.stats_log_interval_s=0 --rest.auth=true \
    --rest.reader_tokens_file="$work/readers"

# code URL [CURL_ARGS...]: the status; body in $work/body, headers in $work/h
code() {
    local url=$1
    shift
    curl -s -o "$work/body" -D "$work/h" -w '%{http_code}' "$@" "$url"
}
[ "$(code "$API/api/v1/health")" = 401 ] || fail "no token: not 401"
grep -qi '^WWW-Authenticate: Bearer' "$work/h" || fail "401 without WWW-Authenticate: $(cat "$work/h")"
jq -e '.description | test("Token not sent")' "$work/body" >/dev/null || fail "401 body: $(cat "$work/body")"
[ "$(code "$API/api/v1/health" -H 'Authorization: Bearer x.y.z')" = 401 ] || fail "malformed token not 401"
[ "$(code "$API/api/v1/health" -H 'Authorization: Basic YWxpY2U6cGFzc3dvcmQx')" = 401 ] ||
    fail "Basic on a protected route not 401"

[ "$(code "$LOGIN")" = 400 ] || fail "login without credentials: not 400"
[ "$(code "$LOGIN" -u alice:wrong)" = 401 ] || fail "login with a wrong password: not 401"
grep -qi '^WWW-Authenticate: Basic' "$work/h" || fail "a refused login without its Basic challenge"
# A page's script (the dashboard) gets no challenge: the browser would open
# its own password dialog over the page's login form.
[ "$(code "$LOGIN" -u nobody:password1 -H 'X-Requested-With: XMLHttpRequest')" = 401 ] ||
    fail "login of an unknown user: not 401"
grep -qi '^WWW-Authenticate' "$work/h" && fail "a script's refused login got a challenge: $(cat "$work/h")"
[ "$(code "$LOGIN" -u alice:password1)" = 200 ] || fail "login: $(cat "$work/body")"
admin=$(jq -r .token "$work/body")
[ "$(code "$LOGIN" -u rita:password2)" = 200 ] || fail "reader login: $(cat "$work/body")"
reader=$(jq -r .token "$work/body")
pass "login with Basic credentials gives a token; bad credentials 400/401"

[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $admin")" = 200 ] || fail "admin GET health"
[ "$(code "$FM/stored_flows" -H "Authorization: Bearer $admin")" = 200 ] || fail "admin GET stored_flows"
[ "$(code "$FM/flows/00:00:00:00:00:00:00:09" -H "Authorization: Bearer $admin" -X POST \
    -H 'Content-Type: application/json' -d '{"flows": [{"priority": 1}]}')" = 404 ] ||
    fail "admin POST did not reach the flow manager (404 unknown switch): $(cat "$work/body")"
[ "$(code "$API/metrics" -H "Authorization: Bearer $reader")" = 200 ] || fail "reader GET metrics"
[ "$(code "$FM/flows/00:00:00:00:00:00:00:09" -H "Authorization: Bearer $reader" -X POST \
    -H 'Content-Type: application/json' -d '{"flows": [{"priority": 1}]}')" = 403 ] ||
    fail "reader POST: not 403: $(cat "$work/body")"
# A switch's flight record holds its whole channel: admin's only, though a GET.
for tok in "$reader" "$scrape"; do
    for sub in capture captures; do
        [ "$(code "$API/api/v1/switches/00:00:00:00:00:00:00:09/$sub" \
            -H "Authorization: Bearer $tok")" = 403 ] ||
            fail "a reader's GET of .../$sub: not 403: $(cat "$work/body")"
    done
done
[ "$(code "$API/api/v1/switches/00:00:00:00:00:00:00:09/capture" \
    -H "Authorization: Bearer $admin")" = 404 ] ||
    fail "admin's GET of an unknown switch's capture: not 404: $(cat "$work/body")"
[ "$(code "$API/api/v1/switches/00:00:00:00:00:00:00:09/captures" \
    -H "Authorization: Bearer $admin")" = 200 ] && jq -e '.captures == []' "$work/body" >/dev/null ||
    fail "admin's GET of an unknown switch's frozen copies: $(cat "$work/body")"
pass "GET .../capture and .../captures: readers refused (403), admin let through"
# Pathfinder's POST is a query: a reader's token (a user's, a static one)
# may ask it; a reader may not make an EVC.
PF=$API/api/kytos/pathfinder/v3/
for tok in "$reader" "$scrape"; do
    [ "$(code "$PF" -H "Authorization: Bearer $tok" -X POST -H 'Content-Type: application/json' \
        -d '{"source": "00:00:00:00:00:00:00:01", "destination": "00:00:00:00:00:00:00:02"}')" = 200 ] ||
        fail "a reader's pathfinder query: $(cat "$work/body")"
done
[ "$(code "$API/api/kytos/mef_eline/v2/evc/" -H "Authorization: Bearer $reader" -X POST \
    -H 'Content-Type: application/json' -d '{"name": "x"}')" = 403 ] ||
    fail "a reader made an EVC: $(cat "$work/body")"
pass "an admin's token may change, a reader's only read (403 otherwise), and ask pathfinder"
[ "$(code "$API/metrics" -H "Authorization: Bearer $scrape")" = 200 ] ||
    fail "the static reader token cannot scrape /metrics"
grep -q '^ofcd_' "$work/body" || fail "/metrics with the static token has no ofcd series"
[ "$(code "$FM/flows/00:00:00:00:00:00:00:01" -X POST -H 'Content-Type: application/json' \
    -d '{"flows":[{"priority":1}]}' -H "Authorization: Bearer $scrape")" = 403 ] ||
    fail "the static reader token may POST"
jq -e '.description | test("static token prometheus is a reader")' "$work/body" >/dev/null ||
    fail "403 body: $(cat "$work/body")"
off=${scrape%?}$([ "${scrape: -1}" = 0 ] && echo 1 || echo 0)
[ "$(code "$API/metrics" -H "Authorization: Bearer $off")" = 401 ] ||
    fail "a token one character off is accepted"
pass "a static reader token (rest.reader_tokens_file) scrapes /metrics, may not POST"

# Tokens made here: one signed with another key, one expired, one for a user
# that does not exist, all otherwise as ofcd makes them (with the user's
# epoch from the users file).
mint() {
    python3 - "$1" "$2" "$3" "$4" "$work/var/users.json" <<'PY'
import base64, hashlib, hmac, json, sys, time
keyfile, user, role, exp_off, users = sys.argv[1:]
key = open(keyfile, "rb").read() if keyfile != "-" else b"k" * 32
epoch = {u["username"]: u["epoch"] for u in json.load(open(users))["users"]}.get(user, "0" * 16)
b = lambda x: base64.urlsafe_b64encode(x).rstrip(b"=").decode()
h = b(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
p = b(json.dumps({"username": user, "role": role, "iss": "ofcd", "epoch": epoch,
                  "exp": int(time.time()) + int(exp_off)}, separators=(",", ":")).encode())
s = b(hmac.new(key, f"{h}.{p}".encode(), hashlib.sha256).digest())
print(f"{h}.{p}.{s}")
PY
}
good=$(mint "$work/var/rest_jwt.key" alice admin 600)
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $good")" = 200 ] ||
    fail "a token made with ofcd's key as ofcd makes them was refused: the checks below prove nothing"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $(mint - alice admin 600)")" = 401 ] ||
    fail "a token signed with another key: not 401"
grep -q "signature" "$work/body" || fail "wrong key: $(cat "$work/body")"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $(mint "$work/var/rest_jwt.key" alice admin -5)")" = 401 ] ||
    fail "an expired token: not 401"
grep -q "expired" "$work/body" || fail "expired: $(cat "$work/body")"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $(mint "$work/var/rest_jwt.key" mallory admin 600)")" = 401 ] ||
    fail "a token of a user that does not exist: not 401"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $(mint "$work/var/rest_jwt.key" rita admin 600)")" = 200 ] &&
    [ "$(code "$FM/flows/00:00:00:00:00:00:00:09" -X POST -H 'Content-Type: application/json' \
        -d '{"flows":[{"priority":1}]}' -H "Authorization: Bearer $(mint "$work/var/rest_jwt.key" rita admin 600)")" = 403 ] ||
    fail "a reader's token that says admin may change: $(cat "$work/body")"
pass "tokens signed with another key, expired, or of an unknown user: 401; the role is the user's now"

# Kytos-ng's user routes: list and get without passwords, create (201, 409,
# 400), PATCH (role, 404), DELETE (the user's tokens then stop working), and
# every change in the users file.
H=(-H "Authorization: Bearer $admin")
J=(-H 'Content-Type: application/json')
[ "$(code "$API/api/kytos/core/auth/users/" "${H[@]}")" = 200 ] || fail "GET users: $(cat "$work/body")"
jq -e '[.users[] | .username] == ["alice", "rita"] and ([.users[] | keys[]] | unique) ==
       ["deleted_at", "email", "inserted_at", "role", "state", "updated_at", "username"]' \
    "$work/body" >/dev/null || fail "users list: $(cat "$work/body")"
iso='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$'
jq -e --arg re "$iso" '.users[0] | .state == "active" and (.inserted_at | test($re)) and
       .deleted_at == null and .updated_at == .inserted_at' "$work/body" >/dev/null ||
    fail "Kytos-ng's user fields (state, inserted_at, updated_at, deleted_at): $(cat "$work/body")"
[ "$(code "$API/api/kytos/core/auth/users/rita" "${H[@]}")" = 200 ] &&
    jq -e '.role == "reader"' "$work/body" >/dev/null || fail "GET users/rita: $(cat "$work/body")"
carl='{"username": "carl", "email": "carl@example.org", "password": "password4"}'
[ "$(code "$API/api/kytos/core/auth/users/" "${H[@]}" "${J[@]}" -X POST -d "$carl")" = 201 ] &&
    [ "$(jq -r . "$work/body")" = "User successfully created" ] || fail "create carl: $(cat "$work/body")"
[ "$(code "$API/api/kytos/core/auth/users/" "${H[@]}" "${J[@]}" -X POST -d "$carl")" = 409 ] ||
    fail "create carl twice: not 409"
[ "$(code "$API/api/kytos/core/auth/users/" "${H[@]}" "${J[@]}" -X POST \
    -d '{"username": "dan", "password": "password5"}')" = 400 ] && grep -q email "$work/body" ||
    fail "create without email: not 400 naming it"
[ "$(code "$API/api/kytos/core/auth/users/" -H "Authorization: Bearer $reader" "${J[@]}" -X POST \
    -d '{"username": "eve", "email": "e@x.org", "password": "password6"}')" = 403 ] ||
    fail "a reader created a user"
[ "$(code "$LOGIN" -u carl:password4)" = 200 ] || fail "the new user cannot log in"
carl_tok=$(jq -r .token "$work/body")
[ "$(code "$API/api/kytos/core/auth/users/carl" "${H[@]}")" = 200 ] || fail "GET carl"
carl_in=$(jq -r .inserted_at "$work/body")
[ "$(jq -r .updated_at "$work/body")" = "$carl_in" ] || fail "a new user's updated_at is not its inserted_at"
# updated_at has whole seconds: the PATCH comes at least one later.
end=$((SECONDS + 3))
while [ "$(date -u +%Y-%m-%dT%H:%M:%S)" = "$carl_in" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
[ "$(code "$API/api/kytos/core/auth/users/carl" "${H[@]}" "${J[@]}" -X PATCH -d '{"role": "reader"}')" = 200 ] ||
    fail "PATCH carl: $(cat "$work/body")"
[ "$(code "$API/api/kytos/core/auth/users/carl" "${H[@]}")" = 200 ] &&
    jq -e --arg t "$carl_in" '.inserted_at == $t and .updated_at > $t' "$work/body" >/dev/null ||
    fail "PATCH did not move updated_at alone: $(cat "$work/body")"
[ "$(code "$API/api/kytos/core/auth/users/nobody" "${H[@]}" "${J[@]}" -X PATCH -d '{"role": "reader"}')" = 404 ] ||
    fail "PATCH of an unknown user: not 404"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $carl_tok")" = 401 ] &&
    grep -q "issued before the user's password or role last changed" "$work/body" ||
    fail "carl's token from before his demotion: $(cat "$work/body")"
[ "$(code "$LOGIN" -u carl:password4)" = 200 ] || fail "carl cannot log in after the PATCH"
[ "$(code "$FM/flows/00:00:00:00:00:00:00:09" -H "Authorization: Bearer $(jq -r .token "$work/body")" \
    "${J[@]}" -X POST -d '{"flows": [{"priority": 1}]}')" = 403 ] || fail "carl, now a reader, may still change"
grep -q '"carl"' "$work/var/users.json" || fail "carl is not in the users file"
[ "$(code "$API/api/kytos/core/auth/users/carl" "${H[@]}" -X DELETE)" = 200 ] || fail "DELETE carl"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $carl_tok")" = 401 ] ||
    fail "a deleted user's token still works"
[ "$(code "$API/api/kytos/core/auth/users/carl" "${H[@]}")" = 404 ] || fail "GET of a deleted user: not 404"
grep -q '"carl"' "$work/var/users.json" && fail "carl is still in the users file"
[ "$(stat -c %a "$work/var/users.json")" = 600 ] || fail "users.json lost mode 600"
pass "Kytos-ng's user routes: list, get, create, PATCH, DELETE, kept in the users file"

# `ofcd user add` on the running ofcd: the rewritten file is read again.
printf 'password7\n' | "$OFCD" user add dora "${C[@]}" >/dev/null || fail "user add dora (running)"
end=$((SECONDS + 5))
until [ "$(code "$LOGIN" -u dora:password7)" = 200 ]; do
    [ $SECONDS -lt $end ] || fail "dora, added while ofcd runs, cannot log in after 5 s"
    sleep 0.5      # the file is looked at once a second; fewer than 5 failures, no lock-out
done
grep -q "users.json changed: " "$work/ofcd.log" || fail "the reload is not logged"
[ "$(code "$LOGIN" -u alice:password1)" = 200 ] || fail "alice lost by the reload"
pass "a user added with ofcd user add while ofcd runs can log in within seconds"

# Guessing is stopped: after 5 failures (the logins above ended in a
# success, which cleared the count) the address waits, even with the right
# password, and tokens already issued still work.
for _ in 1 2 3 4 5; do
    [ "$(code "$LOGIN" -u alice:guess)" = 401 ] || fail "a wrong password: not 401"
done
[ "$(code "$LOGIN" -u alice:password1)" = 429 ] || fail "login after 5 failures: not 429"
grep -qi '^Retry-After: [1-9]' "$work/h" || fail "429 without Retry-After: $(cat "$work/h")"
[ "$(code "$API/api/v1/health" -H "Authorization: Bearer $admin")" = 200 ] ||
    fail "a token issued before the lock-out stopped working"
pass "failed logins are limited per address (429, Retry-After)"
stop_ofcd
pass "rest_auth: all checks passed"
