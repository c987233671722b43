#!/usr/bin/env bash
# HTTPS on the REST API (rest.tls_cert, rest.tls_key): a certificate made
# here with openssl; curl trusting it gets answers over TLS (a flow POSTed
# and listed back), curl not trusting it is refused by its own check, plain
# HTTP gets no answer; a half configuration (a certificate without its key),
# a missing file, a key readable by others and a file that is no PEM each
# stop start-up with one line naming the key and the file.
#
# usage: rest_https.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool jq
require_tool openssl

it_setup rest-https
API=https://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/rest.key" \
    -out "$work/rest.crt" -days 1 -subj /CN=ofcd-test -addext subjectAltName=IP:127.0.0.1 \
    >/dev/null 2>&1 || fail "openssl cannot make a test certificate"
chmod 600 "$work/rest.key"

# refused START_ARGS... EXPECTED_LOG_SUBSTRING: ofcd exits non-zero, saying why.
refused() {
    local want=${*: -1} args=("${@:1:$#-1}") rc
    timeout 60 "$OFCD" --config "$CONF" --app.data_dir="$work/var" "${args[@]}" \
        >"$work/refused.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "ofcd started (rc $rc) with ${args[*]}"
    grep -qF -- "$want" "$work/refused.log" ||
        fail "start-up refused without saying '$want': $(grep -E 'ERROR' "$work/refused.log")"
}
refused --rest.tls_cert="$work/rest.crt" "rest.tls_key is not"
refused --rest.tls_cert="$work/rest.crt" --rest.tls_key="$work/nope.key" \
    "rest.tls_key = $work/nope.key: cannot open"
cp "$work/rest.key" "$work/open.key"
chmod 644 "$work/open.key"
refused --rest.tls_cert="$work/rest.crt" --rest.tls_key="$work/open.key" "readable by others"
echo "not a certificate" >"$work/junk.crt"
refused --rest.tls_cert="$work/junk.crt" --rest.tls_key="$work/rest.key" "no PEM block"
pass "a half or broken HTTPS configuration stops start-up, naming the key and the file"

start_ofcd "$work/ofcd.log" --config "$CONF" --apps.topology=false --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0 --rest.tls_cert="$work/rest.crt" --rest.tls_key="$work/rest.key"
grep -q "REST API on https://127.0.0.1:8181" "$work/ofcd.log" || fail "no https line in the log"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges 1 tcp:10.66.0.2:6653 1000 || fail "cannot create a bridge"
DP=00:00:00:00:00:00:10:01
code=$(curl -s --cacert "$work/rest.crt" -o "$work/body" -w '%{http_code}' "$API/api/v1/health")
[ "$code" = 200 ] && jq -e '.status' "$work/body" >/dev/null ||
    fail "GET health over HTTPS: $code $(cat "$work/body")"
for _ in $(seq 100); do
    [ "$(curl -s --cacert "$work/rest.crt" "$API/api/v1/switches/$DP" | jq -r .connected)" = true ] && break
    sleep 0.1
done
code=$(curl -s --cacert "$work/rest.crt" -o "$work/body" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' --data-binary '{"flows": [{"priority": 7, "match": {"in_port": 1}}]}' "$FM/flows/$DP")
[ "$code" = 202 ] || fail "POST over HTTPS: $code $(cat "$work/body")"
n=$(curl -s --cacert "$work/rest.crt" "$FM/stored_flows?dpid=$DP" |
    jq '[.[] | .[]] | length')
[ "$n" = 1 ] || fail "stored_flows over HTTPS: $n flows, not 1"
pass "HTTPS: health, a flow POSTed to an Open vSwitch bridge and listed back"

curl -s -o /dev/null "$API/api/v1/health"
rc=$?
[ $rc = 60 ] || fail "curl not trusting the certificate: exit $rc, expected 60 (verify failed)"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:8181/api/v1/health)
[ "$code" != 200 ] || fail "plain HTTP answered 200 on the HTTPS port"
curl -s --cacert "$work/rest.crt" -o /dev/null "$API/api/v1/health" ||
    fail "HTTPS stopped answering after a plain-HTTP client"
pass "an untrusted certificate is refused by the client; plain HTTP gets no answer"
out=$(ofcdctl config/reload) || fail "config/reload: $out"
grep -qF "rest.tls_cert: files -> not read again, at the next restart" <<<"$out" ||
    fail "a reload does not say REST's certificate waits for a restart: $out"
pass "a reload says REST's HTTPS certificate is read again only at the next restart"
stop_ofcd
pass "rest_https: all checks passed"
